#include "contest/observe/timeline.h"

#include <cmath>
#include <functional>
#include <sstream>

#include "contest/sys/proc_files.h"
#include "contest/sys/text_file.h"

namespace contest {

namespace {

using Clock = std::chrono::steady_clock;

// Two decimals: what a plot or a reader needs, and a third of the digits.
nlohmann::json rounded(double v) {
    if (!std::isfinite(v)) return nullptr;
    return std::round(v * 100) / 100;
}

// Rate per second of a cumulative counter between two samples; null when
// either side is missing or the counter went backwards.
nlohmann::json rate(std::optional<std::uint64_t> a, std::optional<std::uint64_t> b, double dt,
                    double scale) {
    if (!a || !b || dt <= 0) return nullptr;
    auto d = counter_delta(*a, *b);
    if (!d) return nullptr;
    return rounded(static_cast<double>(*d) * scale / dt);
}

CpuJiffies cpu_jiffies_of(const CpuTicks& t) {
    CpuJiffies j;
    j.user = t.user + t.nice;
    j.system = t.system + t.irq + t.softirq;
    j.iowait = t.iowait;
    j.steal = t.steal;
    j.total = t.user + t.nice + t.system + t.idle + t.iowait + t.irq + t.softirq + t.steal;
    return j;
}

// nullopt unless all four fields are there.
std::optional<MemoryKiB> memory_of(const Meminfo& kib) {
    MemoryKiB m;
    const std::pair<const char*, std::uint64_t*> wanted[] = {{"MemFree", &m.free},
                                                             {"Cached", &m.cached},
                                                             {"Dirty", &m.dirty},
                                                             {"Writeback", &m.writeback}};
    for (auto [name, field] : wanted) {
        auto it = kib.find(name);
        if (it == kib.end()) return std::nullopt;
        *field = it->second;
    }
    return m;
}

}  // namespace

std::optional<CpuJiffies> parse_cpu_jiffies(const std::string& proc_stat) {
    auto t = parse_proc_stat_cpu(proc_stat);
    if (!t) return std::nullopt;
    return cpu_jiffies_of(*t);
}

nlohmann::json cpu_share_pct(const CpuJiffies& earlier, const CpuJiffies& later,
                             std::uint64_t CpuJiffies::*field) {
    auto total = counter_delta(earlier.total, later.total);
    auto d = counter_delta(earlier.*field, later.*field);
    if (!total || *total == 0 || !d) return nullptr;
    return rounded(static_cast<double>(*d) / static_cast<double>(*total) * 100);
}

nlohmann::json cpu_split_pct(const CpuJiffies& earlier, const CpuJiffies& later) {
    return {{"user", cpu_share_pct(earlier, later, &CpuJiffies::user)},
            {"system", cpu_share_pct(earlier, later, &CpuJiffies::system)},
            {"iowait", cpu_share_pct(earlier, later, &CpuJiffies::iowait)},
            {"steal", cpu_share_pct(earlier, later, &CpuJiffies::steal)}};
}

std::optional<DiskSectors> parse_diskstats(const std::string& text, const std::string& device) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        unsigned major, minor;
        std::string name;
        std::uint64_t v[7];
        if (!(fields >> major >> minor >> name) || name != device) continue;
        // reads merged sectors_read ms_reading writes merged sectors_written
        for (auto& x : v)
            if (!(fields >> x)) return std::nullopt;
        return DiskSectors{v[2], v[6]};
    }
    return std::nullopt;
}

std::optional<MemoryKiB> parse_meminfo(const std::string& text) {
    return memory_of(parse_meminfo_text(text));
}

TimelineSampler::TimelineSampler(TimelineOptions options) : options_(std::move(options)) {
    if (!(options_.hz > 0)) options_.hz = 10;
    device_ = block_device_of(options_.disk_path);
}

TimelineSampler::~TimelineSampler() {
    stop();
}

TimelineSample TimelineSampler::take_sample() const {
    TimelineSample s;
    s.t_s = std::chrono::duration<double>(Clock::now() - t0_).count();
    if (auto t = read_proc_stat_cpu()) s.cpu = cpu_jiffies_of(*t);
    s.psi = read_psi();
    if (device_.found)
        if (auto text = read_text_file("/proc/diskstats"))
            s.disk = parse_diskstats(*text, device_.name);
    s.memory = memory_of(read_meminfo_kib());
    return s;
}

void TimelineSampler::start() {
    std::lock_guard lock(mutex_);
    if (thread_.joinable()) return;
    samples_.clear();
    marks_.clear();
    stopping_ = false;
    t0_ = Clock::now();
    t0_unix_s_ =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    first_pressure_ = read_pressure();
    auto first = take_sample();
    first.psi = first_pressure_.psi;
    samples_.push_back(std::move(first));
    thread_ = std::thread([this] { loop(); });
}

void TimelineSampler::loop() {
    const auto step = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(1.0 / options_.hz));
    // Absolute deadlines: a slow read delays one sample, not all that follow.
    auto next = t0_ + step;
    std::unique_lock lock(mutex_);
    while (!wake_.wait_until(lock, next, [this] { return stopping_; })) {
        lock.unlock();
        auto s = take_sample();
        lock.lock();
        samples_.push_back(std::move(s));
        const auto now = Clock::now();
        while (next <= now) next += step;
    }
}

void TimelineSampler::mark(const std::string& name) {
    std::lock_guard lock(mutex_);
    marks_[name] = std::chrono::duration<double>(Clock::now() - t0_).count();
}

void TimelineSampler::stop() {
    {
        std::lock_guard lock(mutex_);
        if (!thread_.joinable()) return;
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
    last_pressure_ = read_pressure();
    auto last = take_sample();
    last.psi = last_pressure_.psi;
    std::lock_guard lock(mutex_);
    samples_.push_back(std::move(last));
}

std::vector<TimelineSample> TimelineSampler::samples() const {
    std::lock_guard lock(mutex_);
    return samples_;
}

nlohmann::json TimelineSampler::window_totals() const {
    std::lock_guard lock(mutex_);
    if (samples_.size() < 2) return {{"reason", "fewer than two samples"}};
    const TimelineSample &a = samples_.front(), &b = samples_.back();
    const double window = b.t_s - a.t_s;
    nlohmann::json totals = pressure_delta(first_pressure_, last_pressure_, window);
    totals["window_s"] = rounded(window);
    if (a.cpu && b.cpu && b.cpu->total > a.cpu->total)
        totals["cpu_pct_of_machine"] = cpu_split_pct(*a.cpu, *b.cpu);
    if (a.disk && b.disk) {
        auto bytes = [](std::uint64_t x, std::uint64_t y) {
            auto d = counter_delta(x, y);
            return d ? nlohmann::json(*d * 512) : nlohmann::json();
        };
        totals["disk"] = {{"device", device_.name},
                          {"read_bytes", bytes(a.disk->read, b.disk->read)},
                          {"written_bytes", bytes(a.disk->written, b.disk->written)}};
    } else {
        totals["disk"] = {{"reason", device_.found ? "no /proc/diskstats line for " + device_.name
                                                   : device_.reason}};
    }
    return totals;
}

nlohmann::json TimelineSampler::to_json() const {
    const auto samples = this->samples();
    nlohmann::json t = nlohmann::json::array();
    using Column = std::function<nlohmann::json(const TimelineSample* prev,
                                                const TimelineSample& cur, double dt)>;
    auto cpu_pct = [](std::uint64_t CpuJiffies::*f) -> Column {
        return [f](const TimelineSample* p, const TimelineSample& c, double) -> nlohmann::json {
            if (!p || !p->cpu || !c.cpu) return nullptr;
            return cpu_share_pct(*p->cpu, *c.cpu, f);
        };
    };
    auto psi_pct = [](PsiResource PsiTotals::*r, std::optional<std::uint64_t> PsiResource::*k) {
        return Column([r, k](const TimelineSample* p, const TimelineSample& c, double dt) {
            if (!p || !p->psi.available || !c.psi.available) return nlohmann::json();
            // µs stalled per second of wall time, as a percentage.
            return rate(p->psi.*r.*k, c.psi.*r.*k, dt, 1e-4);
        });
    };
    auto disk_rate = [](std::uint64_t DiskSectors::*f) {
        return Column([f](const TimelineSample* p, const TimelineSample& c, double dt) {
            if (!p || !p->disk || !c.disk) return nlohmann::json();
            return rate(p->disk.value().*f, c.disk.value().*f, dt, 512.0 / (1 << 20));
        });
    };
    auto mem_mib = [](std::uint64_t MemoryKiB::*f) {
        return Column([f](const TimelineSample*, const TimelineSample& c, double) {
            return c.memory ? rounded(static_cast<double>(c.memory.value().*f) / 1024)
                            : nlohmann::json();
        });
    };
    const std::vector<std::tuple<const char*, const char*, Column>> columns = {
        {"cpu_user_pct", "% of machine", cpu_pct(&CpuJiffies::user)},
        {"cpu_system_pct", "% of machine", cpu_pct(&CpuJiffies::system)},
        {"cpu_iowait_pct", "% of machine", cpu_pct(&CpuJiffies::iowait)},
        {"cpu_steal_pct", "% of machine", cpu_pct(&CpuJiffies::steal)},
        {"psi_cpu_some_pct", "% of time", psi_pct(&PsiTotals::cpu, &PsiResource::some_us)},
        {"psi_memory_some_pct", "% of time", psi_pct(&PsiTotals::memory, &PsiResource::some_us)},
        {"psi_memory_full_pct", "% of time", psi_pct(&PsiTotals::memory, &PsiResource::full_us)},
        {"psi_io_some_pct", "% of time", psi_pct(&PsiTotals::io, &PsiResource::some_us)},
        {"psi_io_full_pct", "% of time", psi_pct(&PsiTotals::io, &PsiResource::full_us)},
        {"disk_read_mib_s", "MiB/s", disk_rate(&DiskSectors::read)},
        {"disk_write_mib_s", "MiB/s", disk_rate(&DiskSectors::written)},
        {"mem_free_mib", "MiB", mem_mib(&MemoryKiB::free)},
        {"mem_cached_mib", "MiB", mem_mib(&MemoryKiB::cached)},
        {"mem_dirty_mib", "MiB", mem_mib(&MemoryKiB::dirty)},
        {"mem_writeback_mib", "MiB", mem_mib(&MemoryKiB::writeback)},
    };
    nlohmann::json cols = nlohmann::json::object(), units = nlohmann::json::object();
    for (const auto& [name, unit, column] : columns) {
        nlohmann::json values = nlohmann::json::array();
        for (std::size_t i = 0; i < samples.size(); ++i) {
            const TimelineSample* prev = i ? &samples[i - 1] : nullptr;
            const double dt = prev ? samples[i].t_s - prev->t_s : 0;
            values.push_back(column(prev, samples[i], dt));
        }
        cols[name] = std::move(values);
        units[name] = unit;
    }
    for (const auto& s : samples) t.push_back(std::round(s.t_s * 1000) / 1000);

    nlohmann::json out;
    out["t0_unix_s"] = std::round(t0_unix_s_ * 1000) / 1000;
    out["step_s"] = 1.0 / options_.hz;
    out["t_s"] = std::move(t);
    out["device"] =
        device_.found ? nlohmann::json(device_.name) : nlohmann::json{{"reason", device_.reason}};
    if (!samples.empty() && !samples.front().psi.available)
        out["psi_reason"] = samples.front().psi.reason;
    out["columns"] = std::move(cols);
    out["units"] = std::move(units);
    {
        std::lock_guard lock(mutex_);
        out["marks"] = marks_;
    }
    out["totals"] = window_totals();
    return out;
}

void TimelineObserver::begin() {
    sampler_.start();
    sampler_.mark("workload_start");
}

// The window's timeline, its totals holding PSI and vmstat.
void TimelineObserver::record(RunRecord& rec) {
    sampler_.stop();
    rec.timeline = sampler_.to_json();
}

}  // namespace contest
