// A change the series showed, confirmed: its two points measured again
// together, in interleaved rounds, judged by the bisection's test of its
// ends; one not confirmed has its neighbouring pairs confirmed in turn.
#include <algorithm>

#include "contest/bisect/bisect_measure.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/track/track_steps.h"

namespace contest::track {

namespace fs = std::filesystem;

void Track::act_on(std::size_t index) {
    TrackChange& change = s_.changes[index];
    const bool would_act =
        change.status == ChangeStatus::found || change.status == ChangeStatus::confirming ||
        change.status == ChangeStatus::bisecting ||
        (change.status == ChangeStatus::not_confirmed && change.neighbour_of.empty());
    if (would_act && left_by_triage(change)) return;
    if (change.status == ChangeStatus::found || change.status == ChangeStatus::confirming)
        confirm(s_.changes[index]);
    if (s_.changes[index].status == ChangeStatus::bisecting) bisect_and_mail(s_.changes[index]);
    if (s_.changes[index].status == ChangeStatus::not_confirmed) add_neighbours(index);
}

// A change the series showed and its confirmation did not: the split's
// place is itself uncertain, and one point of the pair measured on a bad
// day (a busy host) can pull it one point off the real step, which then
// lies between the pair and a neighbour. So each neighbouring pair of
// stored points is confirmed in turn (once: a neighbour's own refusal adds
// none), each its own paired test at the same level.
void Track::add_neighbours(std::size_t index) {
    const TrackChange change = s_.changes[index];
    if (!change.neighbour_of.empty()) return;
    std::vector<std::string> stored;
    for (const auto& p : s_.points)
        if (p.status == PointStatus::stored) stored.push_back(p.commit);
    const auto at = std::find(stored.begin(), stored.end(), change.before);
    if (at == stored.end() || at + 1 == stored.end() || *(at + 1) != change.after) return;
    const std::size_t i = static_cast<std::size_t>(at - stored.begin());
    std::vector<std::pair<std::string, std::string>> pairs;
    if (i > 0) pairs.emplace_back(stored[i - 1], stored[i]);
    if (i + 2 < stored.size()) pairs.emplace_back(stored[i + 1], stored[i + 2]);
    for (const auto& [before, after] : pairs) {
        const bool known = std::any_of(s_.changes.begin(), s_.changes.end(), [&](auto& k) {
            return k.before == before && k.after == after;
        });
        if (known) continue;
        TrackChange& n = s_.changes.emplace_back();
        n.series = change.series;
        n.before = before;
        n.after = after;
        n.change = change.change;
        n.p = change.p;
        n.neighbour_of = change.before + ".." + change.after;
        save();
        progress_.note("contest track: the change between " + printable(point_name(change.before)) +
                       " and " + printable(point_name(change.after)) +
                       " not confirmed: its neighbours " + printable(point_name(before)) + " and " +
                       printable(point_name(after)) + " next");
        act_on(s_.changes.size() - 1);
    }
}

void Track::confirm(TrackChange& change) {
    const std::string base =
        "changes/" + three_digits(static_cast<std::size_t>(&change - s_.changes.data()) + 1) + "-" +
        change.before.substr(0, 12) + "-" + change.after.substr(0, 12);
    change.confirm_folder = base + "/confirm";
    change.bisect_folder = base + "/bisect";
    // Parts across reboots are taken on where they stand (each part's
    // figures read back, the one under way asked again).
    const bool going_on = change.status == ChangeStatus::confirming &&
                          bench_.goes_on_by_itself(o_.folder / change.confirm_folder / "part-1");
    if (!going_on) set_aside(o_.folder / change.confirm_folder);
    change.status = ChangeStatus::confirming;
    if (!going_on) ++change.confirm_attempts;
    save();
    progress_.status("contest track: confirming the change between " +
                     printable(point_name(change.before)) + " and " +
                     printable(point_name(change.after)));
    // Parts of --confirm-rounds interleaved rounds each, the rounds pooled
    // and the ends' test asked after each part, until the pair differs or
    // the ends' bound of rounds is reached (as a bisection's ends are
    // measured until they differ): a clear step is confirmed by one part, a
    // step near the noise is given the rounds that can see it.
    std::vector<EndsRound> rounds;
    EndsVerdict verdict;
    BisectRule rule = o_.rule;
    rule.ends_max_rounds = std::max(rule.ends_max_rounds, o_.confirm_rounds);
    for (unsigned part = 1; verdict.state == EndsState::unknown; ++part) {
        std::vector<ResultFile> files;
        try {
            files = bench_.compare(
                change.before, change.after,
                o_.folder / change.confirm_folder / ("part-" + std::to_string(part)));
        } catch (const PointFailed& e) {
            change.status = ChangeStatus::not_confirmed;
            change.confirm_why = std::string("its comparison failed: ") + e.what();
            save();
            warn("contest track: " + printable(change.confirm_why));
            return;
        }
        unsigned incomplete = 0;
        const std::vector<EndsRound> more =
            files.size() == 2 ? bisect::ends_rounds(files[0], files[1], o_.measure, incomplete)
                              : std::vector<EndsRound>{};
        if (more.empty()) {
            change.status = ChangeStatus::not_confirmed;
            change.confirm_why = "its comparison brought no round of both points back";
            save();
            warn("contest track: " + printable(change.confirm_why));
            return;
        }
        rounds.insert(rounds.end(), more.begin(), more.end());
        // The last part's rounds reach the bound: the test's last look.
        if (rounds.size() + o_.confirm_rounds > rule.ends_max_rounds)
            rule.ends_max_rounds = std::max<unsigned>(rule.ends_min_rounds, rounds.size());
        verdict = judge_ends(rounds, rule, bisect::unit_of(o_.measure));
    }
    change.confirm_why = verdict.why;
    const bool same_way = (verdict.shift > 0) == (change.change > 0);
    change.status = verdict.state == EndsState::differ && same_way ? ChangeStatus::bisecting
                                                                   : ChangeStatus::not_confirmed;
    if (verdict.state == EndsState::differ && !same_way)
        change.confirm_why += " (the other way from the series' change)";
    save();
    progress_.note(
        "contest track: the change between " + printable(point_name(change.before)) + " and " +
        printable(point_name(change.after)) +
        (change.status == ChangeStatus::bisecting ? " confirmed: " : " not confirmed: ") +
        printable(change.confirm_why));
}

}  // namespace contest::track
