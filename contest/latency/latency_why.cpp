#include "contest/latency/latency_why.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "contest/observe/trace_events.h"
#include "contest/sys/text.h"
#include "contest/sys/text_file.h"

namespace contest::latency {

namespace {

nlohmann::json named_times(const std::vector<NamedTime>& v) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& n : v) out.push_back({{"name", valid_utf8(n.name)}, {"ns", n.ns}});
    return out;
}

nlohmann::json task_times(const std::vector<TaskTime>& v, std::size_t most) {
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < v.size() && i < most; ++i)
        out.push_back({{"comm", valid_utf8(v[i].comm)},
                       {"pid", v[i].pid},
                       {"class", task_class_name(v[i].task_class)},
                       {"ns", v[i].ns}});
    return out;
}

// A spike's stretches in time order; past `most`, the rest as one count.
nlohmann::json timeline_json(const std::vector<LatePart>& parts, std::size_t most) {
    nlohmann::json out = nlohmann::json::array();
    std::int64_t rest_ns = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const LatePart& p = parts[i];
        if (i >= most) {
            rest_ns += p.ns;
            continue;
        }
        nlohmann::json j = {
            {"at_ns", p.at_ns}, {"ns", p.ns}, {"kind", std::string(late_part_kind_name(p.kind))}};
        if (!p.name.empty()) j["name"] = valid_utf8(p.name);
        if (p.kind == LatePart::Kind::task) {
            j["pid"] = p.pid;
            j["class"] = std::string(task_class_name(p.task_class));
        }
        out.push_back(std::move(j));
    }
    if (parts.size() > most)
        out.push_back({{"at_ns", parts[most].at_ns},
                       {"ns", rest_ns},
                       {"kind", "more"},
                       {"parts", parts.size() - most}});
    return out;
}

nlohmann::json split_json(const LateWakeup& w, const LateWakeupSplit& s) {
    return {{"intended_ns", w.intended_ns},
            {"late_ns", s.window_ns},
            {"cpu", w.cpu},
            {"cpus", s.cpus},
            {"timer_expiry_ns", s.timer_expiry_ns},
            {"interrupts", named_times(s.interrupts)},
            {"softirqs", named_times(s.softirqs)},
            {"tasks", task_times(s.tasks, 8)},
            {"unexplained_ns", s.unexplained_ns},
            {"unexplained_why", valid_utf8(s.unexplained_why)},
            {"timeline", timeline_json(s.timeline, 40)}};
}

nlohmann::json by_cause_json(const LateTimeByCause& c) {
    nlohmann::json interrupts = nlohmann::json::object(), softirqs = nlohmann::json::object(),
                   classes = nlohmann::json::object();
    for (const auto& [name, ns] : c.interrupts) interrupts[valid_utf8(name)] = ns;
    for (const auto& [name, ns] : c.softirqs) softirqs[valid_utf8(name)] = ns;
    for (const auto& [cls, ns] : c.task_classes) classes[std::string(task_class_name(cls))] = ns;
    return {{"late_ns", c.window_ns},
            {"timer_expiry_ns", c.timer_expiry_ns},
            {"interrupts_ns", interrupts},
            {"softirqs_ns", softirqs},
            {"tasks_by_class_ns", classes},
            {"unexplained_ns", c.unexplained_ns},
            {"inferred_switches", c.inferred_switches}};
}

}  // namespace

LatencyWhy::LatencyWhy(const LatencyWhyOptions& options) : options_(options) {
    mount_tracefs_if_absent(options.tracefs_root);
    remove_stale_instances(options.tracefs_root);
    TraceInstanceOptions t;
    t.tracefs_root = options.tracefs_root;
    t.buffer_size_kb = options.buffer_size_kb;
    trace_ = TraceInstance::make(t, why_not_);
    if (!trace_ && why_not_.empty()) why_not_ = "the tracing instance could not be made";
}

LatencyWhy::~LatencyWhy() = default;

std::vector<std::string> LatencyWhy::remove_stale() {
    return remove_stale_instances(from_environment().tracefs_root);
}

LatencyWhyOptions LatencyWhy::from_environment() {
    LatencyWhyOptions o;
    if (const char* root = std::getenv(kTracefsRootVariable); root && *root) o.tracefs_root = root;
    return o;
}

std::vector<std::string> LatencyWhy::missing_events() const {
    return trace_ ? trace_->missing_events() : std::vector<std::string>{};
}

void LatencyWhy::begin() {
    if (trace_ && !trace_->start(&why_not_)) trace_.reset();
}

void LatencyWhy::end() {
    if (trace_) trace_->stop();
}

nlohmann::json LatencyWhy::attribute(const std::vector<ProbeResult>& results,
                                     const TaskCensus& census) const {
    if (!trace_) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& r : results)
            out[std::string(r.options.name())] = {{"recorded", false}, {"why", why_not_}};
        return out;
    }
    const TraceText text = trace_->read();
    return attribute_trace(text.text,
                           {trace_->buffer_size_kb(), trace_->missing_events(), text.truncated},
                           results, census, options_.worst);
}

nlohmann::json attribute_trace(std::string_view text, const TraceFacts& facts,
                               const std::vector<ProbeResult>& results, const TaskCensus& census,
                               std::size_t most) {
    nlohmann::json out = nlohmann::json::object();
    const ParsedTrace parsed = parse_trace(text);
    const TaskClassifier classify = census.classifier(parsed.events);
    const EventsByCpu by_cpu = events_by_cpu(parsed.events);
    for (const auto& r : results) {
        if (r.late_threshold_ns <= 0) continue;
        LateTimeByCause total;
        std::size_t not_in_trace = 0;
        std::vector<std::pair<LateWakeup, LateWakeupSplit>> splits;
        for (const LateWakeup& w : r.late) {
            const auto located =
                locate_late_wakeup(parsed.events, by_cpu, w.pid, w.intended_ns, w.woke_ns, w.cpu);
            if (!located) {
                ++not_in_trace;
                continue;
            }
            auto split = split_late_wakeup(by_cpu, *located, classify);
            total.add(split);
            LateWakeup where = w;
            where.cpu = located->window.cpu;
            splits.emplace_back(where, std::move(split));
        }
        std::sort(splits.begin(), splits.end(), [](const auto& a, const auto& b) {
            return a.second.window_ns > b.second.window_ns;
        });
        nlohmann::json worst = nlohmann::json::array();
        for (std::size_t i = 0; i < splits.size() && i < most; ++i)
            worst.push_back(split_json(splits[i].first, splits[i].second));
        out[std::string(r.options.name())] = {{"recorded", true},
                                              {"threshold_ns", r.late_threshold_ns},
                                              {"buffer_size_kb", facts.buffer_size_kb},
                                              {"missing_events", facts.missing_events},
                                              {"late_wakeups", r.late_seen},
                                              {"kept", r.late.size()},
                                              {"in_trace", splits.size()},
                                              {"not_in_trace", not_in_trace},
                                              {"trace_truncated", facts.truncated},
                                              {"trace_lost_events", parsed.lost_events},
                                              {"by_cause", by_cause_json(total)},
                                              {"tasks", task_times(total.tasks_by_time(), 10)},
                                              {"worst", worst}};
    }
    return out;
}

std::vector<std::pair<pid_t, TaskClass>> known_groups(const LatencyProbes& probes,
                                                      pid_t load_pgid) {
    std::vector<std::pair<pid_t, TaskClass>> groups;
    for (pid_t p : probes.process_groups()) groups.push_back({p, TaskClass::contest});
    if (load_pgid > 0) groups.push_back({load_pgid, TaskClass::load});
    return groups;
}

LatencyWhyObserver::LatencyWhyObserver(const LatencyProbes& probes, pid_t load_pgid)
    : why_(LatencyWhy::from_environment()), probes_(probes), load_pgid_(load_pgid) {}

void LatencyWhyObserver::begin() {
    why_.begin();
    census_.emplace(known_groups(probes_, load_pgid_));
    census_->start();
}

void LatencyWhyObserver::spawned(pid_t pid) {
    if (!census_) return;
    // Its own group (spawn's default), so its pgid is its pid.
    census_->add_group(pid, TaskClass::workload);
    census_->take();
}

void LatencyWhyObserver::end() {
    if (census_) census_->stop();
    why_.end();
}

void LatencyWhyObserver::record(RunRecord& rec) {
    if (!rec.latency.is_object() || !census_) return;
    const auto split = why_.attribute(probes_.results(), *census_);
    for (const auto& [probe, why] : split.items())
        if (rec.latency.contains(probe) && rec.latency[probe].is_object())
            rec.latency[probe]["why"] = why;
}

}  // namespace contest::latency
