#pragma once
// A change the track confirmed and bisected, as a mail in the shape of the
// kernel test robot's (LKP, 0-day), rendered through the outputs table
// (report/outputs.h: the use track_mail, text only): the first bad commit
// with its subject and author, every figure of the change each named (the
// confirmation's, the figure of record the Subject and lead give; the
// series'; the bisection's ends'), the bisection's evidence, the two
// kernels' table (`contest post --style lkp` of the confirmation's run:
// the machine, each measure's %change, the run's words; its mark of the
// measure followed and its verdict the confirmation's test, Time's beside
// it) and the track's command. No line wider than the post's columns;
// MIME-clean (a non-ASCII Subject as RFC 2047 encoded-words, the body's
// UTF-8 said). The model is plain: what the track's state, its
// confirmation and its bisection say, put together by the track's own
// layer (contest/track/track_mail.cpp).
#include <optional>
#include <string>
#include <vector>

#include "contest/report/bisection_text.h"
#include "contest/result/result_file.h"

namespace contest {

// The confirmation's figures of the measure: each side's mean over the
// rounds of both (every part's).
struct TrackMailConfirmed {
    unsigned rounds = 0;
    double before = 0, after = 0;
    double change = 0;  // after / before - 1
};

struct TrackMail {
    // The track.
    std::string tree, branch, every;  // every: "tag" or N
    std::string from;                 // its first point's first 12 hex digits
    std::string measure;              // WHAT:LOAD, followed
    std::string load, row;            // the measure's load, and its row of the table ("" none)
    std::string unit;                 // of the measure's figures: " s", ""
    // The change of record, the confirmation's (the series' where it has
    // none): the Subject's, the lead's and the table's.
    double change = 0;
    std::optional<TrackMailConfirmed> confirmed;
    std::string confirm_why;  // the confirmation's test
    // The series': where it showed the change, between two points named
    // (tag and hash) or, a neighbour's, at another pair's split.
    std::string series;
    double series_change = 0, p = 1;
    std::string before, after;  // the points around the change, named
    bool neighbour = false;     // found at the split between split_before and split_after
    std::string split_before, split_after;
    // The bisection's ends' own measuring (none: 0 rounds).
    unsigned ends_rounds = 0;
    double shift = 0;                      // bad - good
    std::vector<std::string> other_hosts;  // a line each
    std::vector<std::string> group;        // its alert's other changes, a line each
    BisectionAnswer bisection;             // its first bad commit (the full hash) and evidence
    std::vector<ResultFile> compared;      // the confirmation's files, the baseline's first
    std::vector<std::string> command;      // the track's, its words
};

std::string track_mail_text(const TrackMail& mail);

}  // namespace contest
