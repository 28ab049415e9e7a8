#include "contest/latency/task_census.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <string_view>

#include "contest/sys/cgroup.h"
#include "contest/sys/text_file.h"

namespace contest::latency {

namespace {

constexpr unsigned long kPfKthread = 0x00200000;
// A parent's parent's...: a chain longer than this is not followed.
constexpr int kMaxParentDepth = 16;

bool kernel_thread_name(std::string_view comm) {
    for (std::string_view prefix :
         {"kworker", "ksoftirqd", "rcu_", "migration", "kswapd", "kcompactd", "jbd2", "khugepaged",
          "irq/", "cpuhp", "idle_inject"})
        if (comm.starts_with(prefix)) return true;
    return comm == "swapper" || comm.starts_with("swapper/");
}

// /proc/TID/stat's parent, process group and flags; nullopt for a task gone.
std::optional<TaskFacts> stat_facts(pid_t tid) {
    const auto text = read_text_file("/proc/" + std::to_string(tid) + "/stat");
    if (!text) return std::nullopt;
    // The comm is in parentheses and may hold any byte: fields after its last ')'.
    const auto close = text->rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(text->substr(close + 1));
    // state ppid pgrp session tty_nr tpgid flags ...
    std::string state;
    long ppid = 0, pgrp = 0, session = 0, tty = 0, tpgid = 0;
    unsigned long flags = 0;
    if (!(fields >> state >> ppid >> pgrp >> session >> tty >> tpgid >> flags)) return std::nullopt;
    TaskFacts f;
    f.tgid = tid;
    f.ppid = static_cast<pid_t>(ppid);
    f.pgrp = static_cast<pid_t>(pgrp);
    f.kernel_thread = (flags & kPfKthread) != 0;
    return f;
}

std::optional<pid_t> as_pid(std::string_view text) {
    if (text.empty() || text.size() > 9 ||
        !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return static_cast<pid_t>(std::stol(std::string(text)));
}

// The numeric entries of a /proc folder (processes, or a process's tasks).
std::vector<pid_t> pids_in(const std::string& folder) {
    std::vector<pid_t> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(folder, ec))
        if (const auto pid = as_pid(e.path().filename().string())) out.push_back(*pid);
    return out;
}

}  // namespace

TaskCensus::TaskCensus(std::vector<std::pair<pid_t, TaskClass>> groups)
    : TaskCensus(std::move(groups), own_run_leaf()) {}

TaskCensus::TaskCensus(std::vector<std::pair<pid_t, TaskClass>> groups, std::string run_leaf)
    : groups_(std::move(groups)), run_leaf_(std::move(run_leaf)), self_(::getpid()) {}

TaskCensus::~TaskCensus() {
    stop();
}

void TaskCensus::add_group(pid_t pgid, TaskClass c) {
    const std::lock_guard lock(mutex_);
    groups_.push_back({pgid, c});
}

void TaskCensus::record(pid_t tid, const TaskFacts& facts) {
    const std::lock_guard lock(mutex_);
    seen_[tid] = facts;
    auto& pgrps = groups_seen_[tid];
    if (std::find(pgrps.begin(), pgrps.end(), facts.pgrp) == pgrps.end())
        pgrps.push_back(facts.pgrp);
}

bool TaskCensus::settled(pid_t tid) const {
    const std::lock_guard lock(mutex_);
    const auto it = seen_.find(tid);
    if (it == seen_.end()) return false;
    if (it->second.tgid == self_) return true;
    for (pid_t pgrp : groups_seen_.at(tid))
        for (const auto& [pgid, cls] : groups_)
            if (pgid == pgrp) return true;
    return false;
}

void TaskCensus::take() {
    for (pid_t tid : pids_in("/proc/self/task")) {
        TaskFacts f;
        f.tgid = self_;
        f.pgrp = ::getpgrp();
        f.ppid = ::getppid();
        record(tid, f);
    }
    if (!run_leaf_.empty()) {
        if (const auto text = read_text_file(run_leaf_ + "/cgroup.threads")) {
            std::istringstream lines(*text);
            for (std::string line; std::getline(lines, line);) {
                // contest's own threads are recorded as such above, and a
                // task seen in a known group stays that group's: neither
                // is read again.
                const auto tid = as_pid(line);
                if (!tid || settled(*tid)) continue;
                auto f = stat_facts(*tid);
                if (!f) continue;
                f->in_run_leaf = true;
                record(*tid, *f);
            }
            return;
        }
    }
    // No leaf: the processes of the known groups, and their threads.
    std::vector<pid_t> pgids;
    {
        const std::lock_guard lock(mutex_);
        for (const auto& [pgid, cls] : groups_) pgids.push_back(pgid);
    }
    for (pid_t pid : pids_in("/proc")) {
        const auto f = stat_facts(pid);
        if (!f || std::find(pgids.begin(), pgids.end(), f->pgrp) == pgids.end()) continue;
        for (pid_t tid : pids_in("/proc/" + std::to_string(pid) + "/task")) {
            TaskFacts t = *f;
            t.tgid = pid;
            record(tid, t);
        }
    }
}

void TaskCensus::start(std::optional<std::chrono::milliseconds> period) {
    stop();
    const auto every = period.value_or(std::chrono::milliseconds(run_leaf_.empty() ? 250 : 50));
    {
        const std::lock_guard lock(mutex_);
        stopping_ = false;
    }
    take();
    thread_ = std::thread([this, every] {
        std::unique_lock lock(mutex_);
        while (!wake_.wait_for(lock, every, [this] { return stopping_; })) {
            lock.unlock();
            take();
            lock.lock();
        }
    });
}

void TaskCensus::stop() {
    if (!thread_.joinable()) return;
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
    take();
}

std::optional<TaskClass> TaskCensus::class_of(pid_t tid, int depth) const {
    if (tid == self_) return TaskClass::contest;
    // A group's leader is its group's, seen or not (the workload's pid).
    for (const auto& [pgid, cls] : groups_)
        if (pgid == tid) return cls;
    const auto it = seen_.find(tid);
    if (it == seen_.end()) return std::nullopt;
    const TaskFacts& f = it->second;
    if (f.tgid == self_) return TaskClass::contest;
    for (pid_t pgrp : groups_seen_.at(tid))
        for (const auto& [pgid, cls] : groups_)
            if (pgid == pgrp) return cls;
    if (f.kernel_thread) return TaskClass::kernel_thread;
    if (!f.in_run_leaf) return std::nullopt;
    // In the run's leaf, in no known group: its parent's (a workload's
    // process that made a group of its own), else contest's own helpers.
    if (depth < kMaxParentDepth && f.ppid > 0 && f.ppid != tid)
        if (const auto parent = class_of(f.ppid, depth + 1)) return parent;
    return TaskClass::contest;
}

TaskClassifier TaskCensus::classifier(const std::vector<TraceEvent>& events) const {
    std::map<pid_t, TaskClass> known;
    std::vector<std::pair<pid_t, TaskClass>> leaders;
    {
        const std::lock_guard lock(mutex_);
        for (const auto& [tid, facts] : seen_)
            if (const auto cls = class_of(tid)) known[tid] = *cls;
        leaders = groups_;
        known[self_] = TaskClass::contest;
    }
    for (const auto& [pgid, cls] : leaders) known.try_emplace(pgid, cls);
    // Events are in time order, so a child's parent is known before it.
    for (const auto& e : events) {
        if (e.kind != TraceEventKind::sched_process_fork || known.count(e.child_pid)) continue;
        if (const auto parent = known.find(e.pid); parent != known.end())
            known[e.child_pid] = parent->second;
    }
    return [known = std::move(known)](pid_t pid, std::string_view comm) {
        if (const auto it = known.find(pid); it != known.end()) return it->second;
        if (pid == 0) return TaskClass::idle;
        if (const auto f = stat_facts(pid); f && f->kernel_thread) return TaskClass::kernel_thread;
        return kernel_thread_name(comm) ? TaskClass::kernel_thread : TaskClass::other;
    };
}

}  // namespace contest::latency
