#include "contest/observe/trace_events.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

#include "contest/sys/enum_names.h"

namespace contest {
namespace {

constexpr std::array<EnumName<TraceEventKind>, 14> kKindNames{{
    {TraceEventKind::sched_waking, "sched_waking"},
    {TraceEventKind::sched_wakeup, "sched_wakeup"},
    {TraceEventKind::sched_switch, "sched_switch"},
    {TraceEventKind::irq_handler_entry, "irq_handler_entry"},
    {TraceEventKind::irq_handler_exit, "irq_handler_exit"},
    {TraceEventKind::softirq_entry, "softirq_entry"},
    {TraceEventKind::softirq_exit, "softirq_exit"},
    {TraceEventKind::local_timer_entry, "local_timer_entry"},
    {TraceEventKind::local_timer_exit, "local_timer_exit"},
    {TraceEventKind::reschedule_entry, "reschedule_entry"},
    {TraceEventKind::reschedule_exit, "reschedule_exit"},
    {TraceEventKind::hrtimer_expire_entry, "hrtimer_expire_entry"},
    {TraceEventKind::sched_process_fork, "sched_process_fork"},
    {TraceEventKind::sched_migrate_task, "sched_migrate_task"},
}};

// The line's head lies in its first columns (a 16-column comm, a pid and the
// CPU); a " [" further in is a field's text, and not looking there keeps a
// long line of garbage linear.
constexpr std::size_t kHeadSearchLimit = 128;

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// The whole of text as a decimal integer (an optional '-', then digits).
template <class Int>
std::optional<Int> whole_number(std::string_view text) {
    if (text.empty()) return std::nullopt;
    Int value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// "<seconds>.<fraction>" (up to 9 fraction digits) in ns. Up to 9 digits of
// seconds (31 years of uptime), so that the ns fit in 63 bits.
std::optional<std::int64_t> timestamp_ns(std::string_view text) {
    const auto dot = text.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot > 9) return std::nullopt;
    const std::string_view fraction = text.substr(dot + 1);
    if (fraction.empty() || fraction.size() > 9) return std::nullopt;
    if (!std::all_of(fraction.begin(), fraction.end(), is_digit)) return std::nullopt;
    const auto seconds = whole_number<std::int64_t>(text.substr(0, dot));
    const auto fraction_value = whole_number<std::int64_t>(fraction);
    if (!seconds || *seconds < 0 || !fraction_value || *fraction_value < 0) return std::nullopt;
    std::int64_t scale = 1;
    for (std::size_t i = fraction.size(); i < 9; ++i) scale *= 10;
    return *seconds * 1'000'000'000 + *fraction_value * scale;
}

// Takes " NAME=<integer>" off the end of text (the last such field, which is
// the real one: an untrusted comm stands before it).
template <class Int>
std::optional<Int> take_number_from_end(std::string_view& text, std::string_view name) {
    const std::string key = " " + std::string(name) + "=";
    const auto at = text.rfind(key);
    if (at == std::string_view::npos) return std::nullopt;
    auto value = whole_number<Int>(text.substr(at + key.size()));
    if (value) text = text.substr(0, at);
    return value;
}

// "NAME=<rest>": the rest.
std::optional<std::string_view> after_key(std::string_view text, std::string_view name) {
    if (text.size() <= name.size() || !text.starts_with(name) || text[name.size()] != '=')
        return std::nullopt;
    return text.substr(name.size() + 1);
}

// sched_switch's left half: "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s".
bool parse_switch_prev(std::string_view text, TraceEvent& e) {
    const auto at = text.rfind(" prev_state=");
    if (at == std::string_view::npos) return false;
    const std::string_view state = text.substr(at + 12);
    const bool state_ok = !state.empty() && std::all_of(state.begin(), state.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '|' || c == '+';
    });
    if (!state_ok) return false;
    text = text.substr(0, at);
    if (!take_number_from_end<int>(text, "prev_prio")) return false;
    const auto pid = take_number_from_end<pid_t>(text, "prev_pid");
    if (!pid || !text.starts_with("prev_comm=")) return false;
    e.prev_comm = std::string(text.substr(10));
    e.prev_pid = *pid;
    e.prev_state = std::string(state);
    return true;
}

bool parse_switch(std::string_view fields, TraceEvent& e) {
    if (!take_number_from_end<int>(fields, "next_prio")) return false;
    const auto next_pid = take_number_from_end<pid_t>(fields, "next_pid");
    if (!next_pid) return false;
    // Either comm may hold " ==> next_comm=" itself: the split is the first
    // one whose left half reads as the previous task's fields.
    static constexpr std::string_view kArrow = " ==> next_comm=";
    for (auto at = fields.find(kArrow); at != std::string_view::npos;
         at = fields.find(kArrow, at + 1)) {
        if (!parse_switch_prev(fields.substr(0, at), e)) continue;
        e.next_comm = std::string(fields.substr(at + kArrow.size()));
        e.next_pid = *next_pid;
        return true;
    }
    return false;
}

// sched_waking and sched_wakeup: "comm=%s pid=%d prio=%d [success=1 ]target_cpu=%03d".
bool parse_wake(std::string_view fields, TraceEvent& e) {
    const auto target = take_number_from_end<int>(fields, "target_cpu");
    if (!target) return false;
    take_number_from_end<int>(fields, "success");  // older kernels print it
    if (!take_number_from_end<int>(fields, "prio")) return false;
    const auto pid = take_number_from_end<pid_t>(fields, "pid");
    const auto comm = after_key(fields, "comm");
    if (!pid || !comm) return false;
    e.comm = std::string(*comm);
    e.pid = *pid;
    e.target_cpu = *target;
    return true;
}

// irq_handler_entry "irq=%d name=%s", irq_handler_exit "irq=%d ret=%s".
bool parse_irq(std::string_view fields, std::string_view second_key, TraceEvent& e) {
    const auto rest = after_key(fields, "irq");
    if (!rest) return false;
    const auto space = rest->find(' ');
    const auto irq = whole_number<int>(rest->substr(0, space));
    if (!irq || space == std::string_view::npos) return false;
    const auto value = after_key(rest->substr(space + 1), second_key);
    if (!value) return false;
    e.irq = *irq;
    if (second_key == "name") e.irq_name = std::string(*value);
    return true;
}

// softirq_entry/exit: "vec=%u [action=%s]".
bool parse_softirq(std::string_view fields, TraceEvent& e) {
    const auto rest = after_key(fields, "vec");
    if (!rest) return false;
    const auto space = rest->find(' ');
    const auto vec = whole_number<int>(rest->substr(0, space));
    if (!vec || space == std::string_view::npos) return false;
    const std::string_view action = rest->substr(space + 1);
    if (!action.starts_with("[action=") || !action.ends_with("]") || action.size() < 10)
        return false;
    e.vec = *vec;
    e.vec_name = std::string(action.substr(8, action.size() - 9));
    return true;
}

// local_timer and reschedule: "vector=%d".
bool parse_vector(std::string_view fields, TraceEvent& e) {
    const auto value = after_key(fields, "vector");
    const auto vector = value ? whole_number<int>(*value) : std::nullopt;
    if (!vector) return false;
    e.irq = *vector;
    return true;
}

// hrtimer_expire_entry: "hrtimer=%p function=%ps now=%llu".
bool parse_hrtimer(std::string_view fields, TraceEvent& e) {
    const auto now = take_number_from_end<std::int64_t>(fields, "now");
    if (!now) return false;
    const auto at = fields.rfind(" function=");
    if (at == std::string_view::npos || !fields.starts_with("hrtimer=")) return false;
    e.hrtimer_now_ns = *now;
    e.hrtimer_function = std::string(fields.substr(at + 10));
    return true;
}

// sched_process_fork: "comm=%s pid=%d child_comm=%s child_pid=%d".
bool parse_fork(std::string_view fields, TraceEvent& e) {
    const auto child_pid = take_number_from_end<pid_t>(fields, "child_pid");
    if (!child_pid) return false;
    const auto at = fields.rfind(" child_comm=");
    if (at == std::string_view::npos) return false;
    const std::string_view child_comm = fields.substr(at + 12);
    fields = fields.substr(0, at);
    const auto pid = take_number_from_end<pid_t>(fields, "pid");
    const auto comm = after_key(fields, "comm");
    if (!pid || !comm) return false;
    e.comm = std::string(*comm);
    e.pid = *pid;
    e.child_comm = std::string(child_comm);
    e.child_pid = *child_pid;
    return true;
}

// sched_migrate_task: "comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d".
bool parse_migrate(std::string_view fields, TraceEvent& e) {
    const auto dest = take_number_from_end<int>(fields, "dest_cpu");
    const auto orig = dest ? take_number_from_end<int>(fields, "orig_cpu") : std::nullopt;
    if (!orig || !take_number_from_end<int>(fields, "prio")) return false;
    const auto pid = take_number_from_end<pid_t>(fields, "pid");
    const auto comm = after_key(fields, "comm");
    if (!pid || !comm || *orig < 0 || *dest < 0) return false;
    e.comm = std::string(*comm);
    e.pid = *pid;
    e.orig_cpu = *orig;
    e.dest_cpu = *dest;
    return true;
}

bool parse_fields(std::string_view fields, TraceEvent& e) {
    switch (e.kind) {
        case TraceEventKind::sched_switch:
            return parse_switch(fields, e);
        case TraceEventKind::sched_waking:
        case TraceEventKind::sched_wakeup:
            return parse_wake(fields, e);
        case TraceEventKind::irq_handler_entry:
            return parse_irq(fields, "name", e);
        case TraceEventKind::irq_handler_exit:
            return parse_irq(fields, "ret", e);
        case TraceEventKind::softirq_entry:
        case TraceEventKind::softirq_exit:
            return parse_softirq(fields, e);
        case TraceEventKind::local_timer_entry:
        case TraceEventKind::local_timer_exit:
        case TraceEventKind::reschedule_entry:
        case TraceEventKind::reschedule_exit:
            return parse_vector(fields, e);
        case TraceEventKind::hrtimer_expire_entry:
            return parse_hrtimer(fields, e);
        case TraceEventKind::sched_process_fork:
            return parse_fork(fields, e);
        case TraceEventKind::sched_migrate_task:
            return parse_migrate(fields, e);
    }
    return false;
}

// The part of line from `at` up to the next space (or its end).
std::string_view word_at(std::string_view line, std::size_t at) {
    if (at >= line.size()) return {};
    const auto space = line.find(' ', at);
    return line.substr(at, space == std::string_view::npos ? std::string_view::npos : space - at);
}

std::size_t skip_spaces(std::string_view line, std::size_t at) {
    while (at < line.size() && line[at] == ' ') ++at;
    return at;
}

// The head at the " [" at `bracket`: "<comm>-<pid> [<cpu>] [<flags>] <ts>: <event>: ",
// filling e and giving where the fields start.
std::optional<std::size_t> parse_head_at(std::string_view line, std::size_t bracket,
                                         TraceEvent& e) {
    // Backwards: the spaces that pad the pid, the pid, its '-'.
    std::size_t pid_end = bracket;
    while (pid_end > 0 && line[pid_end - 1] == ' ') --pid_end;
    std::size_t pid_start = pid_end;
    while (pid_start > 0 && is_digit(line[pid_start - 1])) --pid_start;
    if (pid_start == pid_end || pid_start == 0 || line[pid_start - 1] != '-') return std::nullopt;
    const auto pid = whole_number<pid_t>(line.substr(pid_start, pid_end - pid_start));
    // Forwards: "[<cpu>] ".
    const auto close = line.find(']', bracket + 2);
    if (!pid || close == std::string_view::npos || close + 1 >= line.size() ||
        line[close + 1] != ' ')
        return std::nullopt;
    const auto cpu = whole_number<int>(line.substr(bracket + 2, close - bracket - 2));
    if (!cpu || *cpu < 0) return std::nullopt;
    // The flags column is there unless the irq-info option is off.
    std::size_t at = skip_spaces(line, close + 1);
    std::string_view word = word_at(line, at);
    if (!word.ends_with(':') || !timestamp_ns(word.substr(0, word.size() - 1))) {
        at = skip_spaces(line, at + word.size());
        word = word_at(line, at);
    }
    if (!word.ends_with(':')) return std::nullopt;
    const auto ts = timestamp_ns(word.substr(0, word.size() - 1));
    if (!ts) return std::nullopt;
    at = skip_spaces(line, at + word.size());
    const auto colon = line.find(':', at);
    if (colon == std::string_view::npos || colon == at) return std::nullopt;
    const std::string_view name = line.substr(at, colon - at);
    const bool name_ok = std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || is_digit(c) || c == '_';
    });
    if (!name_ok) return std::nullopt;
    const auto kind = trace_event_kind(name);
    if (!kind) return std::nullopt;
    const std::size_t dash = pid_start - 1, comm_start = skip_spaces(line, 0);
    e.task_comm = std::string(line.substr(comm_start, dash - comm_start));
    e.task_pid = *pid;
    e.cpu = *cpu;
    e.ts_ns = *ts;
    e.kind = *kind;
    return colon + 1 < line.size() && line[colon + 1] == ' ' ? colon + 2 : colon + 1;
}

// "CPU:N [LOST M EVENTS]": M.
std::optional<std::uint64_t> lost_events(std::string_view line) {
    if (!line.starts_with("CPU:")) return std::nullopt;
    const auto at = line.find(" [LOST ");
    if (at == std::string_view::npos || !line.ends_with(" EVENTS]")) return std::nullopt;
    const std::size_t from = at + 7, to = line.size() - 8;
    if (to <= from) return std::nullopt;
    return whole_number<std::uint64_t>(line.substr(from, to - from));
}

}  // namespace

std::optional<TraceEventKind> trace_event_kind(std::string_view name) {
    return value_in(kKindNames, name);
}

std::string_view trace_event_name(TraceEventKind kind) {
    return name_in(kKindNames, kind);
}

std::optional<TraceEvent> parse_trace_line(std::string_view line) {
    const std::string_view head = line.substr(0, std::min(line.size(), kHeadSearchLimit));
    for (auto bracket = head.find(" ["); bracket != std::string_view::npos;
         bracket = head.find(" [", bracket + 1)) {
        TraceEvent e;
        const auto fields_at = parse_head_at(line, bracket, e);
        if (!fields_at) continue;
        // The first head that fits is the line's; a field that does not
        // parse makes the line unreadable, not a reason to look for another.
        if (!parse_fields(line.substr(std::min(*fields_at, line.size())), e)) return std::nullopt;
        return e;
    }
    return std::nullopt;
}

ParsedTrace parse_trace(std::string_view text) {
    ParsedTrace parsed;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        if (line.ends_with('\r')) line.remove_suffix(1);
        if (line.empty() || line.starts_with('#')) continue;
        if (auto lost = lost_events(line)) {
            parsed.lost_events += *lost;
            continue;
        }
        if (auto e = parse_trace_line(line))
            parsed.events.push_back(std::move(*e));
        else
            ++parsed.skipped_lines;
    }
    return parsed;
}

std::vector<TraceEvent> events_of_cpu(const std::vector<TraceEvent>& events, int cpu) {
    std::vector<TraceEvent> mine;
    for (const auto& e : events)
        if (e.cpu == cpu) mine.push_back(e);
    std::stable_sort(mine.begin(), mine.end(),
                     [](const TraceEvent& a, const TraceEvent& b) { return a.ts_ns < b.ts_ns; });
    return mine;
}

}  // namespace contest
