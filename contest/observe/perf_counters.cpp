#include "contest/observe/perf_counters.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "contest/sys/errors.h"

namespace contest {

namespace {

constexpr PerfEventSpec kSoftwareEvents[] = {
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
};

// branches is not asked for by name, but a branch-miss rate needs it.
constexpr PerfEventSpec kHardwareEvents[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
};

constexpr std::uint64_t kReadFormat = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                                      PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;

// What an errno from perf_event_open means for a benchmark reader.
std::string open_failure(int err, const PerfParanoid& paranoid) {
    std::string meaning;
    switch (err) {
        case ENOENT:
        case EOPNOTSUPP:
        case ENODEV:
            meaning = "this machine has no such event (no hardware PMU exposed, as on most VMs)";
            break;
        case EACCES:
        case EPERM:
            meaning = "not permitted: " + paranoid.note;
            break;
        case EINVAL:
            meaning = "the kernel rejected the event's attributes";
            break;
        case ESRCH:
            meaning = "the workload was gone before its counters were opened";
            break;
        case EMFILE:
        case ENFILE:
            meaning = "out of file descriptors";
            break;
        default:
            meaning = "perf_event_open failed";
    }
    return std::string("not available: ") + std::strerror(err) + ": " + meaning;
}

long perf_event_open(perf_event_attr* attr, pid_t pid, int cpu, int group_fd, unsigned long flags) {
    return ::syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

// CapEff bit 38 (CAP_PERFMON) or 21 (CAP_SYS_ADMIN): not bound by the paranoid level.
bool has_perf_capability() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("CapEff:", 0) != 0) continue;
        const std::uint64_t caps = std::stoull(line.substr(7), nullptr, 16);
        return (caps >> 38 & 1) || (caps >> 21 & 1);
    }
    return ::geteuid() == 0;
}

}  // namespace

std::span<const PerfEventSpec> hardware_perf_events() {
    return kHardwareEvents;
}

std::vector<PerfCount> scale_group_read(std::span<const std::uint64_t> buffer,
                                        const std::vector<std::string>& names,
                                        const std::vector<std::uint64_t>& ids) {
    std::vector<PerfCount> counts(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) counts[i].name = names[i];
    const std::size_t nr = buffer.empty() ? 0 : buffer[0];
    if (buffer.size() < 3 || buffer.size() < 3 + 2 * nr) {
        for (auto& c : counts) c.reason = "not counted: the group's read was short";
        return counts;
    }
    const std::uint64_t enabled = buffer[1], running = buffer[2];
    for (std::size_t i = 0; i < names.size(); ++i) {
        PerfCount& c = counts[i];
        c.enabled_ns = enabled;
        c.running_ns = running;
        std::optional<std::uint64_t> raw;
        for (std::size_t k = 0; k < nr; ++k)
            if (i < ids.size() && buffer[4 + 2 * k] == ids[i]) raw = buffer[3 + 2 * k];
        if (!raw) {
            c.reason = "not counted: not in the group's read";
            continue;
        }
        c.raw = *raw;
        if (running == 0) {
            c.reason = enabled == 0 ? "not counted: never enabled (the workload never exec'd)"
                                    : "not counted: never scheduled on a PMU counter while "
                                      "enabled (all counters busy: multiplexed out)";
            continue;
        }
        c.counted = true;
        c.value =
            static_cast<double>(*raw) * static_cast<double>(enabled) / static_cast<double>(running);
    }
    return counts;
}

PerfParanoid perf_paranoid_from(std::optional<int> level, bool privileged) {
    PerfParanoid p;
    p.privileged = privileged;
    p.level = level;
    if (!level) {
        p.note = "/proc/sys/kernel/perf_event_paranoid unreadable: no perf events in this kernel";
        p.blocks = true;
        return p;
    }
    const std::string setting = "perf_event_paranoid=" + std::to_string(*level);
    if (privileged) {
        p.note = setting + ", but contest runs privileged (root/CAP_PERFMON): not restricted";
    } else if (*level >= 3) {
        p.blocks = true;
        p.note = setting +
                 " denies perf_event_open to unprivileged users: run as root or "
                 "lower it (sysctl kernel.perf_event_paranoid=1)";
    } else if (*level == 2) {
        p.blocks = true;
        p.note = setting +
                 " lets unprivileged users count user space only: kernel-side "
                 "events (context switches, faults' kernel work) read low; "
                 "sysctl kernel.perf_event_paranoid=1 counts both";
    } else {
        p.note = setting + ": own processes' user and kernel space may be counted";
    }
    return p;
}

PerfParanoid read_perf_paranoid() {
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    int level;
    return perf_paranoid_from(in >> level ? std::optional<int>(level) : std::nullopt,
                              has_perf_capability());
}

PerfCounters::Group PerfCounters::open_group(std::span<const PerfEventSpec> events,
                                             pid_t pid) const {
    Group g;
    int leader = -1;
    for (const PerfEventSpec& spec : events) {
        perf_event_attr attr{};
        attr.size = sizeof attr;
        attr.type = spec.type;
        attr.config = spec.config;
        attr.read_format = kReadFormat;
        attr.inherit = 1;
        // The leader gates the group: off until the workload's exec.
        attr.disabled = leader < 0;
        attr.enable_on_exec = leader < 0;
        attr.exclude_kernel = exclude_kernel_;
        attr.exclude_hv = exclude_kernel_;
        // An event the PMU lacks may leave the next one to lead the group.
        const long fd = perf_event_open(&attr, pid, -1, leader, PERF_FLAG_FD_CLOEXEC);
        g.names.push_back(spec.name);
        g.fds.emplace_back(static_cast<int>(fd));
        g.ids.push_back(0);
        if (fd < 0) {
            g.open_failures.push_back(open_failure(errno, paranoid_));
            continue;
        }
        g.open_failures.emplace_back();
        std::uint64_t id = 0;
        if (::ioctl(static_cast<int>(fd), PERF_EVENT_IOC_ID, &id) == 0) g.ids.back() = id;
        if (leader < 0) leader = static_cast<int>(fd);
    }
    return g;
}

void PerfCounters::open(pid_t pid) {
    paranoid_ = read_perf_paranoid();
    exclude_kernel_ = false;
    software_ = open_group(kSoftwareEvents, pid);
    // Paranoid level 2 refuses kernel-side counting to the unprivileged:
    // user space only is still worth having, and the note says so.
    if (software_.fds.front().get() < 0 && paranoid_.blocks && !paranoid_.privileged) {
        software_.fds.clear();
        exclude_kernel_ = true;
        software_ = open_group(kSoftwareEvents, pid);
    }
    hardware_ = open_group(kHardwareEvents, pid);
}

PerfReading PerfCounters::read() const {
    PerfReading reading;
    reading.paranoid = paranoid_;
    for (const Group* g : {&software_, &hardware_}) {
        auto leader = std::find_if(g->fds.begin(), g->fds.end(),
                                   [](const UniqueFd& fd) { return fd.get() >= 0; });
        std::vector<std::uint64_t> buffer(3 + 2 * g->names.size());
        std::string read_failure;
        if (leader == g->fds.end()) {
            buffer.clear();
        } else {
            const ssize_t n =
                ::read(leader->get(), buffer.data(), buffer.size() * sizeof(std::uint64_t));
            if (n < 0)
                read_failure = std::string("not counted: read failed: ") + std::strerror(errno);
            buffer.resize(n < 0 ? 0 : static_cast<std::size_t>(n) / sizeof(std::uint64_t));
        }
        auto counts = scale_group_read(buffer, g->names, g->ids);
        for (std::size_t i = 0; i < counts.size(); ++i) {
            if (!g->open_failures[i].empty())
                counts[i].reason = g->open_failures[i];
            else if (!read_failure.empty())
                counts[i].reason = read_failure;
            if (exclude_kernel_ && counts[i].counted)
                counts[i].reason = "user space only: " + paranoid_.note;
            reading.counts.push_back(std::move(counts[i]));
        }
    }
    return reading;
}

const PerfCount* PerfReading::find(const std::string& name) const {
    for (const auto& c : counts)
        if (c.name == name) return &c;
    return nullptr;
}

namespace {
std::optional<double> ratio_of(const PerfReading& r, const char* num, const char* den) {
    const PerfCount* n = r.find(num);
    const PerfCount* d = r.find(den);
    if (!n || !d || !n->counted || !d->counted || d->value <= 0) return std::nullopt;
    return n->value / d->value;
}
}  // namespace

std::optional<double> PerfReading::ipc() const {
    return ratio_of(*this, "instructions", "cycles");
}
std::optional<double> PerfReading::cache_miss_rate() const {
    return ratio_of(*this, "cache-misses", "cache-references");
}
std::optional<double> PerfReading::branch_miss_rate() const {
    return ratio_of(*this, "branch-misses", "branches");
}

nlohmann::json PerfReading::to_json() const {
    nlohmann::json events = nlohmann::json::object();
    for (const auto& c : counts) {
        nlohmann::json e;
        e["counted"] = c.counted;
        if (c.counted) {
            e["value"] = c.value;
            e["raw"] = c.raw;
            e["multiplexed"] = c.running_ns < c.enabled_ns;
        }
        e["time_enabled_ns"] = c.enabled_ns;
        e["time_running_ns"] = c.running_ns;
        if (!c.reason.empty()) e["reason"] = c.reason;
        events[c.name] = std::move(e);
    }
    auto derived = [](std::optional<double> v, const char* needs) {
        return v ? nlohmann::json(*v) : nlohmann::json{{"value", nullptr}, {"reason", needs}};
    };
    nlohmann::json limits{
        {"privileged", paranoid.privileged}, {"blocks", paranoid.blocks}, {"note", paranoid.note}};
    limits["level"] = paranoid.level ? nlohmann::json(*paranoid.level) : nlohmann::json();
    return {{"events", events},
            {"ipc", derived(ipc(), "needs instructions and cycles counted")},
            {"cache_miss_rate", derived(cache_miss_rate(), "needs cache-misses and -references")},
            {"branch_miss_rate", derived(branch_miss_rate(), "needs branch-misses and branches")},
            {"perf_event_paranoid", limits}};
}

void PerfObserver::prepare_spawn(SpawnOptions& so) {
    so.before_exec = [this] { gate_.wait_in_child(); };
    so.after_fork = [this](pid_t child) {
        counters_.open(child);
        gate_.release();
    };
}

// The tree's counts, while its exited leader is unreaped.
void PerfObserver::end() {
    reading_ = counters_.read().to_json();
}

void PerfObserver::record(RunRecord& rec) {
    rec.perf = reading_;
}

}  // namespace contest
