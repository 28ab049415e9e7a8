#pragma once
// Which host CPUs a process or thread may run on, read and set as taskset
// does (sched_getaffinity, sched_setaffinity), and a CPU list written as
// taskset -c and /proc's Cpus_allowed_list write it ("0-3,6"). Duet guests
// (contest/run/places/guests/duet_cpus.h) pin each QEMU to CPUs of its own with these.
#include <sys/types.h>

#include <string>
#include <vector>

namespace contest {

// The CPUs this process may run on now, in ascending order: what a cgroup's
// cpuset and the caller's own affinity leave of the online ones.
std::vector<int> allowed_cpus();

// The CPUs thread or process `tid` may run on, ascending; empty when it is
// gone.
std::vector<int> cpus_of(pid_t tid);

// Pins `tid` (a process's main thread, or one thread) to `cpus`. Threads it
// starts afterwards inherit the set. EnvironmentError naming the CPUs when
// the kernel refuses (a CPU offline, or outside the cgroup's cpuset).
void pin_to_cpus(pid_t tid, const std::vector<int>& cpus);

// The threads of process `pid` now (/proc/PID/task); empty when it is gone.
std::vector<pid_t> threads_of(pid_t pid);

// "0-3,6": ascending runs joined, as taskset -c prints a list.
std::string cpu_list_text(const std::vector<int>& cpus);

}  // namespace contest
