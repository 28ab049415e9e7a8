#include "contest/report/latency_window.h"

#include <cstdarg>
#include <cstdio>

#include "contest/analysis/latency_model.h"
#include "contest/report/latency_tables.h"
#include "contest/sys/json_text.h"
#include "contest/sys/number_text.h"

namespace contest {

namespace {

// Appends printf's text of format to out.
__attribute__((format(printf, 2, 3))) void append_printf(std::string& out, const char* format,
                                                         ...) {
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    if (n > 0) {
        const std::size_t at = out.size();
        out.resize(at + static_cast<std::size_t>(n) + 1);
        std::vsnprintf(out.data() + at, static_cast<std::size_t>(n) + 1, format, again);
        out.resize(at + static_cast<std::size_t>(n));
    }
    va_end(again);
}

constexpr std::size_t kDistributionRows = 100;  // stress-ng prints at most 100 too
void add_figure(std::string& out, const char* probe, const char* what,
                const std::optional<std::int64_t>& ns) {
    if (ns)
        append_printf(out, "%s: %-10s %12lld ns\n", probe, what, static_cast<long long>(*ns));
    else
        append_printf(out, "%s: %-10s %12s\n", probe, what, "-");
}

void add_figure(std::string& out, const char* probe, const char* what,
                const std::optional<double>& ns) {
    if (ns)
        append_printf(out, "%s: %-10s %14.1f ns\n", probe, what, *ns);
    else
        append_printf(out, "%s: %-10s %12s\n", probe, what, "-");
}

void add_probe_lines(std::string& out, const latency::ProbeResult& r, std::int64_t dist_ns) {
    using namespace latency;
    std::string name(r.options.name());
    const char* n = name.c_str();
    const LatencyStats& s = r.stats;
    append_printf(out, "%s: sched %s", n, std::string(name_of(r.setup.policy)).c_str());
    if (r.setup.policy != SchedPolicy::other) append_printf(out, " %d", r.setup.priority);
    append_printf(out, ", method %s, period %lld ns, window %.2f s\n",
                  std::string(name_of(r.options.method)).c_str(),
                  static_cast<long long>(r.options.period_ns), r.window_s);
    if (r.setup.policy_note[0]) append_printf(out, "%s: fallback: %s\n", n, r.setup.policy_note);
    append_printf(out, "%s: %-10s %12llu\n", n, "samples",
                  static_cast<unsigned long long>(s.samples()));
    add_figure(out, n, "mean", s.mean_ns());
    add_figure(out, n, "mode", s.mode_ns());
    add_figure(out, n, "min", s.min_ns());
    add_figure(out, n, "max", s.max_ns());
    add_figure(out, n, "sd", s.sd_ns());
    for (double p : kReportedPercentiles) {
        std::string label = "p";
        label += fixed(p, 2);
        add_figure(out, n, label.c_str(), s.percentile_ns(p));
    }
    auto missed = r.missed_pct();
    append_printf(out, "%s: %-10s %12llu of %llu periods (%.2f%%), %llu skipped\n", n, "missed",
                  static_cast<unsigned long long>(s.missed()),
                  static_cast<unsigned long long>(s.periods()), missed.value_or(0),
                  static_cast<unsigned long long>(s.skipped()));
    if (auto wanted = r.share_wanted_pct()) {
        append_printf(
            out, "%s: %-10s %.1f%% of a CPU wanted, %.1f%% got (%llu chunks of %.0f ns a period)\n",
            n, "cpu share", *wanted, r.share_got_pct().value_or(0),
            static_cast<unsigned long long>(r.chunks_per_period), r.calibration->ns_per_chunk);
        const double nominal = 1e9 / static_cast<double>(r.options.period_ns);
        const auto low = s.one_pct_low_fps();
        const auto mean = s.frame_mean_ns();
        append_printf(out, "%s: %-10s %llu done, %.1f fps mean, 1%% low %.1f fps (nominal %.1f)\n",
                      n, "frames", static_cast<unsigned long long>(s.frames()),
                      mean ? 1e9 / *mean : 0.0, low.value_or(0), nominal);
    }
    if (r.cpu_pct)
        append_printf(out, "%s: %-10s %.2f%% (user %.3f s, sys %.3f s)\n", n, "probe cpu",
                      *r.cpu_pct, *r.cpu_user_s, *r.cpu_sys_s);
    append_printf(out, "%s: %-10s %s, timer slack %lld ns\n", n, "memory",
                  r.setup.memory_locked ? "locked" : r.setup.lock_note,
                  static_cast<long long>(r.setup.timer_slack_ns));
    if (!r.complete)
        append_printf(out, "%s: incomplete: the probe was stopped before it settled\n", n);
    append_printf(out, "%s: latency distribution (%lld ns buckets):\n", n,
                  static_cast<long long>(dist_ns));
    append_printf(out, "%s: %14s %10s\n", n, "latency_ns", "count");
    for (const auto& row : s.distribution(dist_ns, kDistributionRows))
        append_printf(out, "%s: %13lld%s %10llu\n", n, static_cast<long long>(row.lower_ns),
                      row.and_above ? "+" : " ", static_cast<unsigned long long>(row.count));
}

// "cyclic: why: 312 wake-ups >= 1000 us late, 298 in the trace; of their late
// time: 71% load tasks, 18% other, 6% softirq NET_RX, 3% unexplained", then
// the tasks that took most and the worst spike.
void add_why_lines(std::string& out, const std::string& n, const nlohmann::json& why) {
    if (!why.value("recorded", false)) {
        append_printf(out, "%s: why        not recorded: %s\n", n.c_str(),
                      why.value("why", std::string("?")).c_str());
        return;
    }
    const auto& c = why["by_cause"];
    const double late = c.value("late_ns", 0.0);
    const std::string shares = late_shares_text(late_causes_ns(c), late);
    append_printf(out, "%s: why        %llu wake-ups >= %lld us late, %llu in the trace%s\n",
                  n.c_str(), why.value("late_wakeups", 0ull), why.value("threshold_ns", 0ll) / 1000,
                  why.value("in_trace", 0ull),
                  late > 0 ? ("; of their late time: " + shares).c_str() : "");
    for (const auto& t : why["tasks"])
        append_printf(out, "%s: why task   %-16s pid %-7d %-13s %10.0f us\n", n.c_str(),
                      t.value("comm", std::string()).c_str(), t.value("pid", 0),
                      t.value("class", std::string()).c_str(), t.value("ns", 0.0) / 1000);
}

}  // namespace

std::string latency_window_text(const LatencyWindowModel& w) {
    std::string out;
    const latency::ProbeResult& r = w.probe;
    if (w.load)
        append_printf(out, "%s: next to %s (its CPU %.1f%%)\n",
                      std::string(r.options.name()).c_str(), w.load->name.c_str(), w.load->cpu_pct);
    add_probe_lines(out, r, w.dist_ns);
    if (!w.why.is_null()) add_why_lines(out, std::string(r.options.name()), w.why);
    return out;
}

std::string latency_window_json(const LatencyWindowModel& w) {
    nlohmann::json j = w.probe.to_json();
    if (!w.why.is_null()) j["why"] = w.why;
    if (w.load) {
        j["load"] = {{"name", w.load->name}, {"cpu_pct", w.load->cpu_pct}};
        if (w.load->failure) j["load"]["failure"] = *w.load->failure;
    }
    return json_text(j) + "\n";
}

}  // namespace contest
