#pragma once
// Where a track stands, for a person (`contest track --status`, and what
// `contest track` says at its end), rendered through the outputs table
// (report/outputs.h: the use track_status, text only). The model is plain:
// what the track's state says, counted and named by the track's own layer
// (contest/track/tracking.cpp); every text of the tree's is made printable
// here.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace contest {

struct TrackStatusPoint {
    std::string name;               // its tag, or its first 12 hex digits
    std::string commit;             // its first 12 hex digits
    std::string status;             // "stored", as the state names it
    std::optional<double> seconds;  // a stored point's measuring run
    unsigned attempts = 0;          // runs started
    std::string why;                // a failed point's reason
};

struct TrackStatusChange {
    std::string series;
    double change = 0;          // as the series showed it (after / before - 1)
    std::string before, after;  // the points either side, their first 12 hex digits
    std::string status;         // "mailed", as the state names it
    std::string first_bad;      // its first 12 hex digits, "" none yet
    std::string first_bad_subject;
    bool bisecting = false;  // its bisection under way, its state in:
    std::string bisect_folder;
    std::string mail;            // the mail's file name
    std::string why;             // no answer: why
    bool not_confirmed = false;  // its confirmation did not confirm it, and said:
    std::string confirm_why;
};

struct TrackStatus {
    std::string tree, branch;
    std::string from;   // its first 12 hex digits
    std::string every;  // "tag" or N
    bool head = false;
    std::string measure;
    int holder = 0;  // the pid taking the track now, 0 none
    std::vector<TrackStatusPoint> points;
    std::size_t stored = 0, failed = 0, to_do = 0;
    std::size_t owed = 0;       // measured, not yet stored (owed to the database)
    double stored_seconds = 0;  // the stored points' runs, in all
    std::vector<TrackStatusChange> changes;
    std::size_t mails = 0;
};

std::string track_status_text(const TrackStatus& status);

}  // namespace contest
