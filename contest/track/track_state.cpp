#include "contest/track/track_state.h"

#include <fcntl.h>

#include <algorithm>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/json_record.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/text.h"

namespace contest {

template <>
struct JsonWords<track::PointStatus> {
    static constexpr const auto& names = track::kPointStatusNames;
    static constexpr const char* what = "point status";
};
template <>
struct JsonWords<track::ChangeStatus> {
    static constexpr const auto& names = track::kChangeStatusNames;
    static constexpr const char* what = "change status";
};

namespace track {

// Each record's fields, named once for both directions (found by
// argument-dependent lookup: in the records' namespace).
template <typename V, RecordOf<TrackPoint> R>
void fields(V& v, R& p) {
    v("commit", p.commit);
    v("name", p.name);
    v("status", p.status);
    v("folder", p.folder);
    v("file", p.file);
    v("why", p.why);
    v("attempts", p.attempts);
    v("seconds", p.seconds);
}

template <typename V, RecordOf<TrackChange> R>
void fields(V& v, R& c) {
    v("series", c.series);
    v("before", c.before);
    v("after", c.after);
    v("change", c.change);
    v("p", c.p);
    v("status", c.status);
    v("confirm_folder", c.confirm_folder);
    v("bisect_folder", c.bisect_folder);
    v("confirm_attempts", c.confirm_attempts);
    v("confirm_why", c.confirm_why);
    v("first_bad", c.first_bad);
    v("first_bad_subject", c.first_bad_subject);
    v("mail", c.mail);
    v("why", c.why);
    v("neighbour_of", c.neighbour_of);
}

template <typename V, RecordOf<TrackState> R>
void fields(V& v, R& s) {
    v("tree", s.tree);
    v("branch", s.branch);
    v("from", s.from);
    v("every", s.every);
    v("head", s.head);
    v("boot", s.boot);
    v("measure", s.measure);
    v("run_words", s.run_words);
    v("point_rounds", s.point_rounds);
    v("confirm_rounds", s.confirm_rounds);
    v("points", s.points);
    v("changes", s.changes);
    v("mailed", s.mailed);
    v("sent", s.sent);
}

namespace {

// 2: the mails sent (--send-to). 3: boot (--boot); a 2's is read as a
// track of guests.
constexpr int kSchema = 3;

bool full_hash(const std::string& s) {
    return s.size() == 40 && std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

// A folder or file the state names is below the track's folder (or the
// mail folder): relative, no `..`, no NUL, not empty when set.
bool below_folder(const std::string& s) {
    if (s.empty()) return true;
    const std::filesystem::path p(s);
    if (p.is_absolute() || s.find('\0') != std::string::npos) return false;
    for (const auto& part : p)
        if (part == ".." || part == ".") return false;
    return true;
}

void check_state(const TrackState& s, const std::string& where) {
    const auto refuse = [&](const std::string& field, const std::string& why) {
        throw UsageError(where + ": " + field + ": " + why);
    };
    if (!std::filesystem::path(s.tree).is_absolute())
        refuse("tree", "'" + printable(s.tree) + "' is not an absolute path");
    if (!full_hash(s.from)) refuse("from", "not a commit's full hash");
    if (s.every != "tag" && (s.every.empty() || s.every.size() > 6 ||
                             !std::all_of(s.every.begin(), s.every.end(),
                                          [](char c) { return c >= '0' && c <= '9'; }) ||
                             std::stoul(s.every) == 0))
        refuse("every", "'" + printable(s.every) + "' is neither tag nor a number of commits");
    if (s.point_rounds == 0 || s.point_rounds > 1000) refuse("point_rounds", "out of range");
    if (s.confirm_rounds < 3 || s.confirm_rounds > 1000) refuse("confirm_rounds", "out of range");
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const TrackPoint& p = s.points[i];
        const std::string at = "points[" + std::to_string(i) + "]";
        if (!full_hash(p.commit)) refuse(at + ".commit", "not a commit's full hash");
        if (!below_folder(p.folder)) refuse(at + ".folder", "not a folder below the track's");
        if (!below_folder(p.file)) refuse(at + ".file", "not a file below the track's folder");
    }
    for (std::size_t i = 0; i < s.changes.size(); ++i) {
        const TrackChange& c = s.changes[i];
        const std::string at = "changes[" + std::to_string(i) + "]";
        if (!full_hash(c.before)) refuse(at + ".before", "not a commit's full hash");
        if (!full_hash(c.after)) refuse(at + ".after", "not a commit's full hash");
        if (!c.first_bad.empty() && !full_hash(c.first_bad))
            refuse(at + ".first_bad", "not a commit's full hash");
        for (const auto& [name, folder] : {std::pair{".confirm_folder", &c.confirm_folder},
                                           std::pair{".bisect_folder", &c.bisect_folder}})
            if (!below_folder(*folder)) refuse(at + name, "not a folder below the track's");
        if (c.mail.find('/') != std::string::npos || !below_folder(c.mail))
            refuse(at + ".mail", "not a file name");
    }
}

}  // namespace

std::string track_state_text(const TrackState& state) {
    nlohmann::json j = RecordWriter::json_of(state, "track state");
    j["schema"] = kSchema;
    return j.dump(1) + "\n";
}

TrackState track_state_from_text(const std::string& text, const std::string& where) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) throw UsageError(where + ": not JSON");
    // A schema 2 state (before --boot) is a track of guests.
    if (j.is_object() && j.value("schema", nlohmann::json()) == 2 && !j.contains("boot")) {
        j["schema"] = kSchema;
        j["boot"] = false;
    }
    take_schema(j, kSchema, where);
    TrackState s;
    RecordReader::read(j, where, s);
    check_state(s, where);
    return s;
}

TrackState read_track_state(const std::filesystem::path& path) {
    const std::string where = printable(path.string());
    const RegularFileRead got =
        read_regular_file_at(AT_FDCWD, path.c_str(), kMaxTrackStateBytes, false);
    if (got.refusal != RegularFileRead::Refusal::none)
        throw UsageError("the track's state " + where + ": " + got.why());
    return track_state_from_text(got.text, where);
}

void write_track_state(const std::filesystem::path& path, const TrackState& state) {
    write_file_atomically(path, track_state_text(state));
}

}  // namespace track
}  // namespace contest
