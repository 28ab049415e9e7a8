#pragma once
// A change the track confirmed and bisected, as a mail in the shape of the
// kernel test robot's (LKP, 0-day): the first bad commit with its subject
// and author, every figure of the change each named (the confirmation's,
// the figure of record the Subject and lead give; the series'; the
// bisection's ends'), the bisection's evidence, the two kernels' table
// (`contest post --style lkp` of the confirmation's run: the machine, each
// measure's %change, the run's words; its mark of the measure followed and
// its verdict the confirmation's test, Time's beside it) and the track's
// command. Every text of the tree's escaped, no line wider than the post's
// columns; MIME-clean (a non-ASCII Subject as RFC 2047 encoded-words, the
// body's UTF-8 said).
#include <string>
#include <vector>

#include "contest/bisect/bisect_state.h"
#include "contest/report/track_mail_text.h"
#include "contest/result/result_file.h"
#include "contest/track/track_state.h"

namespace contest::track {

// `compared`: the confirmation's files (every part's; the before's first,
// the baseline of the table); `other_hosts`: a
// line per other host of the database with a series of the same workload,
// load and measure, what it shows between the same points; `group`: the
// change's alert (history/triage.h), a line per other change between the
// same two kernels, and whether it comes back after one marked fixed. The
// model (report/track_mail_text.h), and the mail the outputs table renders
// of it.
TrackMail track_mail_model(const TrackState& state, const TrackChange& change,
                           const bisect::BisectState& bisection,
                           const std::vector<ResultFile>& compared,
                           const std::vector<std::string>& other_hosts = {},
                           const std::vector<std::string>& group = {});
std::string track_mail(const TrackState& state, const TrackChange& change,
                       const bisect::BisectState& bisection,
                       const std::vector<ResultFile>& compared,
                       const std::vector<std::string>& other_hosts = {},
                       const std::vector<std::string>& group = {});

// The mail's file name: track-FIRSTBAD12-WHAT-LOAD.mail (the measure's
// characters outside [A-Za-z0-9_.-] written as '_').
std::string mail_file_name(const std::string& first_bad, const std::string& measure);

}  // namespace contest::track
