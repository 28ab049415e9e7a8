#pragma once
// Child processes (started by spawn.h), the way a benchmark must handle
// them: each in its own process group, timed with wait4 on its own pid, waited for with pidfd +
// poll (so Ctrl-C and timeouts are seen at once), stopped with killpg (TERM,
// then KILL), and reaped only through the functions here: wait_child for a
// timed one, wait_for_exit and reap_if_exited for the others.
#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace contest {

struct ExitInfo {
    int status = 0;          // raw wait status
    struct rusage usage {};  // of the pid and the descendants it waited for
    double wall_s = 0;       // from just before spawn to reaping
    bool timed_out = false;
    bool exited_ok() const;
    std::string describe() const;  // "timed out", else describe_wait_status
};

// The one text for how a process ended, from its raw wait status:
// "exit 2", "killed by signal 9 (Killed)".
std::string describe_wait_status(int status);

// Reaps pid, retrying on EINTR; returns its raw wait status (-1 on error).
// For programs a load starts and waits for itself; the timed window uses
// wait_child.
int wait_for_exit(pid_t pid);
// Reaps pid if it has ended: its raw wait status, or nullopt while it runs.
// Throws EnvironmentError when pid is no child of ours (any more).
std::optional<int> reap_if_exited(pid_t pid);
// pid's raw wait status once it has ended, left unreaped (WNOWAIT) for the
// reap that follows (wait_child, or the group's stop); nullopt while it runs
// or when it is no child of ours.
std::optional<int> exit_status_unreaped(pid_t pid);

struct WaitHooks {
    // Called once, the moment the child is seen to have exited and before
    // it is reaped: where the orchestrator samples the load.
    std::function<void()> on_exit;
    // Called about every tick_interval while waiting (live progress).
    std::function<void()> tick;
    std::chrono::milliseconds tick_interval{1000};
    // Stop the child's group after this long and mark the run timed out.
    std::optional<std::chrono::duration<double>> timeout;
};

// Waits for pid (a child of ours) by polling its pidfd together with the
// interrupt fd. On interrupt throws Interrupted, leaving the pid to the
// caller's GroupGuard. Reaps pid with wait4 and returns its rusage: the
// pid's own and that of every descendant it waited for, as time(1) reports.
// Throws EnvironmentError when pid cannot be reaped (it is no child of ours,
// or something else reaped it): its outcome is then unknown.
ExitInfo wait_child(pid_t pid, std::chrono::steady_clock::time_point started,
                    const WaitHooks& hooks = {});

// Stops every process of group pgid: SIGTERM, up to `grace` for them to go,
// then SIGKILL; reaps the ones that are our children (contest is a
// subreaper, so orphans of the group are ours too). Returns when the group
// is empty or only holds processes that are not ours to reap.
void stop_group(pid_t pgid, std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

// Owns a process group: stops and reaps it when it goes out of scope, on
// every path (normal end, exception, interrupt).
class GroupGuard {
  public:
    explicit GroupGuard(pid_t pgid = -1) : pgid_(pgid) {}
    GroupGuard(const GroupGuard&) = delete;
    GroupGuard& operator=(const GroupGuard&) = delete;
    GroupGuard(GroupGuard&& o) noexcept : pgid_(o.pgid_) { o.pgid_ = -1; }
    GroupGuard& operator=(GroupGuard&& o) noexcept {
        if (this != &o) {
            stop();
            pgid_ = o.pgid_;
            o.pgid_ = -1;
        }
        return *this;
    }
    ~GroupGuard() { stop(); }
    void stop() {
        if (pgid_ > 0) stop_group(pgid_);
        pgid_ = -1;
    }
    pid_t release() {
        pid_t p = pgid_;
        pgid_ = -1;
        return p;
    }
    pid_t pgid() const { return pgid_; }

  private:
    pid_t pgid_;
};

// CPU seconds (user+sys, plus reaped children's) of every live process in a
// group, from /proc/PID/stat. Sampled at the workload's start and end, the
// difference is the load's CPU over exactly that window.
double group_cpu_seconds(pid_t pgid);

// Pids of live processes in group pgid (from /proc).
std::vector<pid_t> group_members(pid_t pgid);

// Every live process whose parent is this process (from /proc).
std::vector<pid_t> own_children();

// Last resort at exit: kill and reap any child still here.
void kill_and_reap_all_children();

// Makes contest the reaper of its descendants' orphans, so that nothing a
// load or the workload started can escape being stopped and reaped.
void become_subreaper();

// Makes the calling process the OOM killer's first choice, so that a load
// that meets memory pressure dies instead of the workload or the machine.
void volunteer_for_oom_killer();

// The start time of pid in clock ticks since boot (/proc/PID/stat field 22),
// 0 when no such process: a pid plus this names one process, even after the
// pid is reused.
unsigned long long process_start_time(pid_t pid);

// Whether the contest that left something behind (a load folder, a note of
// knobs to put back, a cgroup, a half-written result file) is gone, so that
// what it left is for this one to clear: no process has its pid now, or the
// one that has it is another. With start_time (process_start_time, recorded
// when it left the thing; 0 when it was not) that is one started at another
// time; without, one that is not a contest. The one way every caller asks.
bool contest_gone(pid_t pid, unsigned long long start_time = 0);

// The pid in a name made of prefix and a pid ("contest-1234" for
// "contest-"), as contest names what it leaves; nullopt for any other name.
std::optional<pid_t> pid_after_prefix(std::string_view name, std::string_view prefix);

// "PID STARTTIME" of this process, for the owner marker in what it leaves.
std::string owner_marker_text();
// contest_gone for the contest a marker names; an unreadable marker names
// none, so what it marks is no one's.
bool marker_owner_dead(const std::string& marker_text);

}  // namespace contest
