#pragma once
// Whose each task of a --latency-why window is, from what contest knows of
// the processes it started, looked up while the window runs (the tasks are
// gone when the trace is read after it): contest's own threads, the
// process groups it gave the workload, the load and the probes, and, when
// contest runs in its run's cgroup leaf (contest/sys/cgroup.h), every task
// in that leaf. The trace's sched_process_fork lines only add to that: a
// child forked by a known task is its parent's. Everything else is another
// process's (a kernel thread by its flag or name; the CPU's idle task idle),
// never contest's: a shell's job-control group or a test harness's holds
// processes contest did not start.
//
//   TaskCensus census({{probe_pgid, TaskClass::contest}, {load_pgid, TaskClass::load}});
//   census.start();                       // a thread looks every period
//   ...spawn...; census.add_group(workload_pid, TaskClass::workload);
//   census.stop();                        // one last look, thread joined
//   TaskClassifier classify = census.classifier(parsed.events);
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "contest/latency/late_wakeup_causes.h"
#include "contest/observe/trace_events.h"

namespace contest::latency {

// What one look saw of a task (a thread: tids are the trace's pids).
struct TaskFacts {
    pid_t tgid = 0, ppid = 0, pgrp = 0;
    bool kernel_thread = false;
    bool in_run_leaf = false;  // listed in the run's cgroup leaf
};

class TaskCensus {
  public:
    // groups: process group -> whose; run_leaf: the run's cgroup leaf
    // folder, "" for none (the default: own_run_leaf()).
    explicit TaskCensus(std::vector<std::pair<pid_t, TaskClass>> groups);
    TaskCensus(std::vector<std::pair<pid_t, TaskClass>> groups, std::string run_leaf);
    ~TaskCensus();
    TaskCensus(const TaskCensus&) = delete;
    TaskCensus& operator=(const TaskCensus&) = delete;

    // A group known once started (the workload's, whose pgid is its pid).
    void add_group(pid_t pgid, TaskClass c);
    // One look now: contest's threads, then the leaf's tasks (or, without a
    // leaf, every process of a known group and its threads).
    void take();
    // A thread that takes a look every `period` until stop(), which takes
    // one last look and joins it. The default period: 50 ms with a leaf
    // (cgroup.threads and the stat of each task in it), 250 ms without
    // (every /proc/PID/stat).
    void start(std::optional<std::chrono::milliseconds> period = std::nullopt);
    void stop();
    // What a look saw of tid (also for tests' own facts).
    void record(pid_t tid, const TaskFacts& facts);

    // The classifier of the window: what the looks saw, then the forks in
    // `events` (time order) from a task so known, then the rest as above.
    TaskClassifier classifier(const std::vector<TraceEvent>& events) const;

  private:
    std::optional<TaskClass> class_of(pid_t tid, int depth = 0) const;
    bool settled(pid_t tid) const;

    mutable std::mutex mutex_;
    std::vector<std::pair<pid_t, TaskClass>> groups_;
    std::string run_leaf_;
    pid_t self_;
    // Each tid as last seen, and every process group it was seen in (a
    // child is in contest's until it moves to its own).
    std::map<pid_t, TaskFacts> seen_;
    std::map<pid_t, std::vector<pid_t>> groups_seen_;
    std::thread thread_;
    std::condition_variable wake_;
    bool stopping_ = false;
};

}  // namespace contest::latency
