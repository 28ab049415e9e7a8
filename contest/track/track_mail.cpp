#include "contest/track/track_mail.h"

#include <cmath>
#include <optional>

#include "contest/bisect/bisect_measure.h"
#include "contest/bisect/bisection_text.h"
#include "contest/report/outputs.h"
#include "contest/track/track_bench.h"

namespace contest::track {

namespace {

std::string point_name(const TrackState& state, const std::string& commit) {
    for (const auto& p : state.points)
        if (p.commit == commit)
            return p.name == commit.substr(0, 12) ? p.name
                                                  : p.name + " (" + commit.substr(0, 12) + ")";
    return commit.substr(0, 12);
}

// The measure the track follows, WHAT:LOAD as the state keeps it.
bisect::BisectMeasure followed_measure(const TrackState& state) {
    const auto colon = state.measure.find(':');
    return {state.measure.substr(0, colon),
            colon == std::string::npos ? "" : state.measure.substr(colon + 1)};
}

// The confirmation's figures of the measure: each side's mean over the
// rounds of both (every part's), and the change between them.
struct Confirmed {
    unsigned rounds = 0;
    double before = 0, after = 0;
    std::optional<double> change;  // after / before - 1; none from a zero
};

Confirmed confirmed_figures(const std::vector<ResultFile>& compared,
                            const bisect::BisectMeasure& m) {
    // Each part's rounds: its before's and after's files, in its folder.
    std::vector<EndsRound> rounds;
    for (const auto& before : compared) {
        if (before.label != kBeforeLabel) continue;
        for (const auto& after : compared) {
            if (after.label != kAfterLabel || after.path.parent_path() != before.path.parent_path())
                continue;
            unsigned incomplete = 0;
            for (const auto& r : bisect::ends_rounds(before, after, m, incomplete))
                rounds.push_back(r);
        }
    }
    Confirmed c;
    for (const auto& r : rounds) {
        c.before += r.good;
        c.after += r.bad;
    }
    c.rounds = static_cast<unsigned>(rounds.size());
    if (c.rounds == 0) return c;
    c.before /= c.rounds;
    c.after /= c.rounds;
    if (c.before != 0) c.change = c.after / c.before - 1;
    return c;
}

// The table's row of the measure: time_s, ratio, loads; "" for a measure
// that has rows of its own (a latency probe's).
std::string row_of(const bisect::BisectMeasure& m) {
    if (m.what == "time") return "time_s";
    if (m.what == "ratio" || m.what == "loads") return m.what;
    return "";
}

}  // namespace

std::string mail_file_name(const std::string& first_bad, const std::string& measure) {
    std::string name = "track-" + first_bad.substr(0, 12) + "-" + measure + ".mail";
    for (char& c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            c = '_';
    return name;
}

TrackMail track_mail_model(const TrackState& state, const TrackChange& change,
                           const bisect::BisectState& bisection,
                           const std::vector<ResultFile>& compared,
                           const std::vector<std::string>& other_hosts,
                           const std::vector<std::string>& group) {
    const bisect::BisectMeasure measure = followed_measure(state);
    const Confirmed confirmed = confirmed_figures(compared, measure);
    TrackMail m;
    m.tree = state.tree;
    m.branch = state.branch;
    m.every = state.every;
    m.from = state.from.substr(0, 12);
    m.measure = state.measure;
    m.load = measure.load;
    m.row = row_of(measure);
    m.unit = bisect::unit_of(measure);
    // One figure of the change throughout: the confirmation's, which the
    // mail is written on; the series' where it has none.
    m.change = confirmed.change.value_or(change.change);
    if (confirmed.change)
        m.confirmed = TrackMailConfirmed{confirmed.rounds, confirmed.before, confirmed.after,
                                         *confirmed.change};
    m.confirm_why = change.confirm_why;
    m.series = change.series;
    m.series_change = change.change;
    m.p = change.p;
    m.before = point_name(state, change.before);
    m.after = point_name(state, change.after);
    if (!change.neighbour_of.empty()) {
        const auto dots = change.neighbour_of.find("..");
        m.neighbour = true;
        m.split_before = point_name(state, change.neighbour_of.substr(0, dots));
        m.split_after = point_name(
            state, dots == std::string::npos ? "" : change.neighbour_of.substr(dots + 2));
    }
    m.ends_rounds = bisection.ends_rounds;
    m.shift = bisection.shift;
    m.other_hosts = other_hosts;
    m.group = group;
    m.bisection = bisect::bisection_answer(bisection);
    m.compared = compared;
    m.command = {"contest", "track",    state.tree, "--branch", state.branch,
                 "--from",  state.from, "--every",  state.every};
    if (state.head) m.command.push_back("--head");
    m.command.insert(m.command.end(), {"--measure", state.measure, "--"});
    for (const auto& w : state.run_words) m.command.push_back(w);
    return m;
}

std::string track_mail(const TrackState& state, const TrackChange& change,
                       const bisect::BisectState& bisection,
                       const std::vector<ResultFile>& compared,
                       const std::vector<std::string>& other_hosts,
                       const std::vector<std::string>& group) {
    return find_output("text", OutputUse::track_mail)
        .track_mail(track_mail_model(state, change, bisection, compared, other_hosts, group));
}

}  // namespace contest::track
