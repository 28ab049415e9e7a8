#pragma once
// A tracefs tracing instance of contest's own, as a bounded flight recorder
// of the scheduler and interrupt events on some CPUs: what was on a CPU when
// a probe woke late (trace_events.h reads its text, and
// contest/latency/late_wakeup_causes.h attributes the late time).
//
// It is <root>/instances/contest-<pid>-<start>-<pidns> (trace_instance_name), made by
// TraceInstance::make and removed by the destructor. Everything it writes is inside that folder:
// never the global buffer's files, never another instance. The buffer
// overwrites its oldest events (options/overwrite 1), so a long window keeps
// its last buffer_size_kb per CPU; the clock is `mono`, so the timestamps are
// CLOCK_MONOTONIC's; only the CPUs asked for are recorded.
//
// Use (as root, tracefs mounted: `mount -t tracefs nodev /sys/kernel/tracing`):
//     std::string why;
//     auto trace = TraceInstance::make({.cpus = {1}, .buffer_size_kb = 4096}, why);
//     if (!trace) warn("no trace: " + why);        // not root, no tracefs, ...
//     trace->start();  ...the window...  trace->stop();
//     ParsedTrace events = parse_trace(trace->read().text);
// An instance left by a contest that was killed is removed by the next one's
// remove_stale_instances(root).
//
// Sizing (measured on this project's 2-CPU VM, these events, one CPU): a
// 1 ms sleeper beside a SCHED_FIFO spinner in bursts and a compile wrote
// about 250 KB of buffer a second (12975 events in 1.9 s); two processes
// ping-ponging a byte through pipes, a context-switch storm like
// process_load's, about 6 MB a second (110,000 events). So 4096 KiB keeps
// the last ~16 s of the first, and the last ~0.7 s of the second: size it for
// the busiest load it will run beside, or read it soon after a late wake-up.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace contest {

inline constexpr const char* kTracefsRoot = "/sys/kernel/tracing";

struct TraceInstanceOptions {
    std::string tracefs_root = kTracefsRoot;
    // The CPUs recorded (tracing_cpumask); empty: every CPU.
    std::vector<int> cpus;
    // Each CPU's ring buffer (buffer_size_kb).
    std::size_t buffer_size_kb = 4096;
};

// The events enabled, "system:event", where the kernel has them.
const std::vector<std::string>& flight_recorder_events();

// tracing_cpumask's text for cpus: hex words of 32 CPUs, the highest first,
// comma-separated ("2" for CPU 1, "1,00000000" for CPU 32).
std::string cpu_mask_text(const std::vector<int>& cpus);

struct TraceText {
    std::string text;
    bool truncated = false;  // over the limit: its oldest lines were dropped
    std::string why;         // why it could not be read at all; "" when read
};

// A trace file's last `limit` bytes, from its first whole line: a flight
// recorder's newest events are kept, as its ring buffer keeps them.
TraceText read_trace_tail(const std::string& file, std::size_t limit);

class TraceInstance {
  public:
    // Makes and configures the instance, tracing off; nullptr and `why`
    // (one sentence: no tracefs at the root, no permission, a setting the
    // kernel refused) when it cannot, with nothing left behind.
    static std::unique_ptr<TraceInstance> make(const TraceInstanceOptions& options,
                                               std::string& why);
    // close().
    ~TraceInstance();
    TraceInstance(const TraceInstance&) = delete;
    TraceInstance& operator=(const TraceInstance&) = delete;

    // tracing_on 1 / 0; false (and why) when the kernel refused.
    bool start(std::string* why = nullptr);
    bool stop(std::string* why = nullptr);
    // The text of `trace` (read with tracing stopped, so that it does not
    // move under the reader): its last max_mib MiB (read_trace_tail).
    TraceText read(std::size_t max_mib = 64) const;

    // Every event off, tracing_on 0, the folder removed; once, and never
    // throws (a cleanup path after an exception may call it).
    void close() noexcept;

    const std::string& path() const { return path_; }
    // buffer_size_kb as the kernel took it (read back after the write).
    std::size_t buffer_size_kb() const { return buffer_size_kb_; }
    const std::string& cpumask() const { return cpumask_; }
    // The flight recorder's events this kernel lacks, "system:event".
    const std::vector<std::string>& missing_events() const { return missing_events_; }

  private:
    explicit TraceInstance(std::string path) : path_(std::move(path)) {}
    bool configure(const TraceInstanceOptions& options, std::string& why);

    std::string path_;
    bool open_ = true;
    std::size_t buffer_size_kb_ = 0;
    std::string cpumask_;
    std::vector<std::string> missing_events_;
};

// The instance's name for the contest of pid: contest-<pid>-<its start
// time>-<its pid namespace's inode>, unique on the machine's one tracefs
// across pid namespaces (two contests in two containers may share a pid)
// and across pid reuse.
std::string trace_instance_name(pid_t pid);

// Removes the instances of contests provably gone: named by
// trace_instance_name in this pid namespace, for a pid no process has now
// or one started at another time (contest_gone). Never an instance named
// otherwise: another namespace's, or an older contest's contest-<pid>,
// which cannot be told from a live one. The paths removed.
std::vector<std::string> remove_stale_instances(const std::string& tracefs_root = kTracefsRoot);

// tracefs is not mounted at boot on every system: mounts it at kTracefsRoot
// when `tracefs_root` is that place and nothing is there yet (as root), as
// `mount -t tracefs nodev /sys/kernel/tracing` would; changes nothing else.
void mount_tracefs_if_absent(const std::string& tracefs_root = kTracefsRoot);

}  // namespace contest
