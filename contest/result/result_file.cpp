#include "contest/result/result_file.h"
#include "contest/result/result_paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <type_traits>
#include <variant>

#include "contest/sys/errors.h"
#include "contest/sys/json_text.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/text.h"
#include "contest/sys/unique_fd.h"

namespace contest {

using nlohmann::json;

namespace {

// One field of a record as the file holds it. The tables below are the only
// place a field is named: to_json and result_from_json both walk them.
enum class Need {
    required,  // absent, null or the wrong type: the file is refused
    optional,  // absent or null: the member keeps its default (older files, unmeasured)
};
enum class Written {
    always,
    when_set,         // omitted while "" / unset / null
    null_when_unset,  // written as null while ""
};

template <typename Record>
struct Field {
    using Member =
        std::variant<std::string Record::*, bool Record::*, int Record::*, double Record::*,
                     std::int64_t Record::*, std::optional<double> Record::*, RunStatus Record::*,
                     json Record::*>;
    const char* name;
    Member member;
    Need need = Need::optional;
    Written written = Written::always;
    bool (*written_if)(const Record&) = nullptr;  // a condition beyond `written`
};

bool has_secondary_unit(const RunRecord& r) {
    return !r.load_secondary_unit.empty();
}

bool has_uncounted_load(const RunRecord& r) {
    return r.load_not_counted;
}

// clang-format off
const Field<RunRecord> kRunFields[] = {
    {"load",                 &RunRecord::load, Need::required},
    {"index",                &RunRecord::index, Need::required},
    {"round",                &RunRecord::round, Need::optional, Written::when_set},
    {"boot",                 &RunRecord::boot, Need::optional, Written::when_set},
    {"run_in_boot",          &RunRecord::run_in_boot, Need::optional, Written::when_set},
    {"status",               &RunRecord::status, Need::required},
    {"reason",               &RunRecord::reason, Need::optional, Written::when_set},
    {"wall_s",               &RunRecord::wall_s, Need::required},
    {"user_s",               &RunRecord::user_s},
    {"sys_s",                &RunRecord::sys_s},
    {"cpu_pct",              &RunRecord::cpu_pct},
    {"load_units",           &RunRecord::load_units},
    {"load_unit",            &RunRecord::load_unit},
    {"load_secondary",       &RunRecord::load_secondary, Need::optional, Written::always, has_secondary_unit},
    {"load_secondary_unit",  &RunRecord::load_secondary_unit, Need::optional, Written::when_set},
    {"load_cpu_pct",         &RunRecord::load_cpu_pct},
    {"load_restarts",        &RunRecord::load_restarts, Need::optional, Written::when_set},
    {"load_not_counted",     &RunRecord::load_not_counted, Need::optional, Written::always, has_uncounted_load},
    {"max_rss_kib",          &RunRecord::max_rss_kib},
    {"minor_faults",         &RunRecord::minor_faults},
    {"major_faults",         &RunRecord::major_faults},
    {"voluntary_switches",   &RunRecord::voluntary_switches},
    {"involuntary_switches", &RunRecord::involuntary_switches},
    // Absent or null reads as unmeasured, never as 0.
    {"others_cpu_pct",       &RunRecord::others_cpu_pct, Need::optional, Written::when_set},
    {"steal_pct",            &RunRecord::steal_pct, Need::optional, Written::when_set},
    {"unit_cpu_us",          &RunRecord::unit_cpu_us, Need::optional, Written::when_set},
    {"caches",               &RunRecord::caches},
    {"settle_wait_s",        &RunRecord::settle_wait_s, Need::optional, Written::when_set},
    {"settle",               &RunRecord::settle, Need::optional, Written::when_set},
    {"exit_status",          &RunRecord::exit_status},
    {"latency",              &RunRecord::latency, Need::optional, Written::when_set},
    {"perf",                 &RunRecord::perf, Need::optional, Written::when_set},
    {"timeline",             &RunRecord::timeline, Need::optional, Written::when_set},
    {"booted",               &RunRecord::booted, Need::optional, Written::when_set},
};

// schema_version and runs are not members: they are written and checked by hand.
const Field<ResultFile> kFileFields[] = {
    {"contest_version",      &ResultFile::contest_version},
    {"label",                &ResultFile::label, Need::required},
    {"started_at",           &ResultFile::started_at},
    {"finished_at",          &ResultFile::finished_at, Need::optional, Written::null_when_unset},
    {"complete",             &ResultFile::complete},
    {"system",               &ResultFile::system},
    {"config",               &ResultFile::config},
    {"loads",                &ResultFile::loads},
    {"stopped_because",      &ResultFile::stopped_because, Need::optional, Written::when_set},
};
// clang-format on

template <typename T>
bool is_unset(const T& v) {
    if constexpr (std::is_same_v<T, std::string>)
        return v.empty();
    else if constexpr (std::is_same_v<T, std::optional<double>>)
        return !v.has_value();
    else if constexpr (std::is_same_v<T, json>)
        return v.is_null();
    else if constexpr (std::is_same_v<T, int>)
        return v == 0;
    else
        return false;
}

// Every text of a record is made valid UTF-8 here: the one way into the file.
template <typename T>
json value_to_json(const T& v) {
    if constexpr (std::is_same_v<T, std::string>)
        return valid_utf8(v);
    else if constexpr (std::is_same_v<T, json>)
        return valid_utf8_json(v);
    else if constexpr (std::is_same_v<T, RunStatus>)
        return std::string(run_status_name(v));
    else if constexpr (std::is_same_v<T, std::optional<double>>)
        return *v;
    else
        return v;
}

template <typename Record>
void write_fields(const Record& record, const Field<Record>* begin, const Field<Record>* end,
                  json& out) {
    for (const auto* f = begin; f != end; ++f) {
        if (f->written_if && !f->written_if(record)) continue;
        std::visit(
            [&](auto member) {
                const auto& v = record.*member;
                if (!is_unset(v))
                    out[f->name] = value_to_json(v);
                else if (f->written == Written::always)
                    out[f->name] = value_to_json(v);
                else if (f->written == Written::null_when_unset)
                    out[f->name] = nullptr;
            },
            f->member);
    }
}

// The value of a field that is there, or a UsageError naming the file and the field.
template <typename T>
T value_from_json(const json& v, const char* name, const std::string& where) {
    if constexpr (std::is_same_v<T, json>) {
        return v;
    } else if constexpr (std::is_same_v<T, RunStatus>) {
        const auto word = value_from_json<std::string>(v, name, where);
        if (auto status = run_status_from_name(word)) return *status;
        const std::string known = names_in(kRunStatusNames, ", ", ", ");
        throw UsageError(where + ": field \"" + name + "\" has an unknown value \"" + word +
                         "\" (known: " + known + ")");
    } else if constexpr (std::is_same_v<T, std::optional<double>>) {
        return value_from_json<double>(v, name, where);
    } else {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            // nlohmann casts a float to an integer as it is: 1e300 as an int
            // is undefined behaviour (found by fuzz_result_file).
            if (v.is_number_float()) {
                const double d = v.get<double>();
                constexpr double below = static_cast<double>(std::numeric_limits<T>::min()) - 1;
                constexpr double above = static_cast<double>(std::numeric_limits<T>::max()) + 1;
                if (!(d > below && d < above) || d != std::trunc(d))
                    throw UsageError(where + ": field \"" + name +
                                     "\" is not a whole number in range");
                return static_cast<T>(d);
            }
        }
        try {
            return v.get<T>();
        } catch (const json::exception&) {
            throw UsageError(where + ": field \"" + name + "\" has the wrong type (" +
                             std::string(v.type_name()) + ")");
        }
    }
}

template <typename Record>
void read_fields(const json& in, const Field<Record>* begin, const Field<Record>* end,
                 const std::string& where, Record& record) {
    for (const auto* f = begin; f != end; ++f) {
        auto it = in.find(f->name);
        if (it == in.end() || (it->is_null() && f->need == Need::optional)) {
            if (f->need == Need::required)
                throw UsageError(where + ": missing field \"" + f->name + "\"");
            continue;
        }
        std::visit(
            [&](auto member) {
                using T = std::remove_reference_t<decltype(record.*member)>;
                record.*member = value_from_json<T>(*it, f->name, where);
            },
            f->member);
    }
}

}  // namespace

json to_json(const RunRecord& r) {
    json j = json::object();
    write_fields(r, std::begin(kRunFields), std::end(kRunFields), j);
    return j;
}

json to_json(const ResultFile& f) {
    json j = {{"schema_version", kSchemaVersion}};
    write_fields(f, std::begin(kFileFields), std::end(kFileFields), j);
    json runs = json::array();
    for (const auto& r : f.runs) runs.push_back(to_json(r));
    j["runs"] = std::move(runs);
    return j;
}

ResultFile result_from_json(const json& j, const std::string& where) {
    if (!j.is_object()) throw UsageError(where + ": not a contest result (expected a JSON object)");
    auto version = j.find("schema_version");
    if (version == j.end()) throw UsageError(where + ": missing field \"schema_version\"");
    int v = value_from_json<int>(*version, "schema_version", where);
    if (v != kSchemaVersion)
        throw UsageError(where + ": schema_version " + std::to_string(v) +
                         " is not supported (this contest reads " + std::to_string(kSchemaVersion) +
                         ")");
    ResultFile f;
    read_fields(j, std::begin(kFileFields), std::end(kFileFields), where, f);
    if (f.label.empty()) throw UsageError(where + ": empty label");
    // Labels and load names go to the terminal in every table.
    if (!is_printable(f.label))
        throw UsageError(where + ": label '" + printable(f.label) + "' has control characters");
    auto runs = j.find("runs");
    if (runs == j.end() || !runs->is_array()) throw UsageError(where + ": missing array \"runs\"");
    int i = 0;
    for (const auto& rj : *runs) {
        std::string w = where + ": runs[" + std::to_string(i++) + "]";
        if (!rj.is_object()) throw UsageError(w + ": not an object");
        RunRecord r;
        read_fields(rj, std::begin(kRunFields), std::end(kRunFields), w, r);
        if (!is_printable(r.load))
            throw UsageError(w + ": load '" + printable(r.load) + "' has control characters");
        if (r.ok() && !(r.wall_s > 0)) throw UsageError(w + ": wall_s must be > 0 for an ok run");
        for (double v : {r.wall_s, r.user_s, r.sys_s, r.cpu_pct, r.load_units, r.load_cpu_pct})
            if (!std::isfinite(v)) throw UsageError(w + ": a measure is not a finite number");
        f.runs.push_back(std::move(r));
    }
    return f;
}

namespace {

namespace fs = std::filesystem;

std::string cause(int error) {
    return error == ELOOP ? "a symlink loop" : std::strerror(error);
}

}  // namespace

// The whole of a regular file, or a UsageError naming the file and the real
// cause (permission denied, a symlink loop, a folder or a FIFO, too large).
std::string read_result_text(const fs::path& path) {
    const std::string name = printable(path.string());
    // Non-blocking: a FIFO named x.json must not hang the report.
    RegularFileRead got = read_regular_file_at(AT_FDCWD, path.c_str(), kMaxResultFileBytes, true);
    switch (got.refusal) {
        case RegularFileRead::Refusal::none:
            return std::move(got.text);
        case RegularFileRead::Refusal::too_large:
            throw UsageError(name + ": larger than " + std::to_string(kMaxResultFileBytes >> 20) +
                             " MiB, not a contest result");
        case RegularFileRead::Refusal::not_regular:
            throw UsageError(name + ": not a regular file");
        default:
            throw UsageError("cannot read result file " + name + ": " + got.why());
    }
}

namespace {

// Collects the *.json files under a folder, walking it depth first. A
// sub-folder that cannot be listed, a symlink loop or a link back to a
// folder already walked is named in `bad` and skipped; the walk goes on.
class ResultFolderWalker {
  public:
    ResultFolderWalker(std::vector<fs::path>& files, std::vector<std::string>& bad)
        : files_(files), bad_(bad) {}

    void walk(const fs::path& dir) {
        struct stat st {};
        if (::stat(dir.c_str(), &st) != 0) {
            skip(dir, cause(errno));
            return;
        }
        if (!visited_.insert({st.st_dev, st.st_ino}).second) {
            skip(dir, "a link back to a folder already read");
            return;
        }
        std::error_code ec;
        fs::directory_iterator it(dir, ec), end;
        if (ec) {
            skip(dir, cause(ec.value()));
            return;
        }
        std::vector<fs::path> folders;
        for (; it != end; it.increment(ec)) {
            if (ec) break;
            entry(*it, folders);
        }
        if (ec) skip(dir, "cannot list all of it: " + cause(ec.value()));
        std::sort(folders.begin(), folders.end());
        for (const auto& f : folders) walk(f);
    }

  private:
    void entry(const fs::directory_entry& e, std::vector<fs::path>& folders) {
        std::error_code ec;
        const auto link = e.symlink_status(ec);
        if (ec) return skip(e.path(), cause(ec.value()));
        // A symlink is followed (a results folder may link to another disk),
        // with loops caught: ELOOP here, a folder seen before in walk().
        const auto target = fs::is_symlink(link) ? fs::status(e.path(), ec) : link;
        if (ec) {
            if (ec == std::errc::no_such_file_or_directory) return;  // a dangling link: no file
            return skip(e.path(), cause(ec.value()));
        }
        if (fs::is_directory(target))
            folders.push_back(e.path());
        else if (e.path().extension() == ".json")
            files_.push_back(e.path());  // a FIFO or device is refused by the reader
    }

    void skip(const fs::path& path, const std::string& why) {
        bad_.push_back(printable(path.string()) + ": " + why);
    }

    std::vector<fs::path>& files_;
    std::vector<std::string>& bad_;
    std::set<std::pair<dev_t, ino_t>> visited_;
};

}  // namespace

ResultFile read_result_file(const std::filesystem::path& path) {
    ResultFile f = result_from_text(read_result_text(path), printable(path.string()));
    f.path = path;
    return f;
}

ResultFile result_from_text(const std::string& text, const std::string& name) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        // e.byte is the offset; turn it into a line for the user.
        const auto upto = static_cast<std::ptrdiff_t>(std::min<std::size_t>(e.byte, text.size()));
        const auto line = 1 + std::count(text.begin(), text.begin() + upto, '\n');
        throw UsageError(name + ":" + std::to_string(line) + ": malformed JSON");
    } catch (const json::exception& e) {
        // A number beyond a double (1e400) is not a parse_error.
        throw UsageError(name + ": unreadable JSON (" + e.what() + ")");
    }
    return result_from_json(j, name);
}

std::vector<fs::path> result_file_paths(const std::vector<fs::path>& paths,
                                        std::vector<std::string>& bad) {
    std::vector<fs::path> files;
    ResultFolderWalker walker(files, bad);
    for (const auto& p : paths) {
        struct stat st {};
        if (::stat(p.c_str(), &st) != 0) {
            const int e = errno;
            bad.push_back(printable(p.string()) + ": " +
                          (e == ENOENT ? std::string("no such file or folder") : cause(e)));
        } else if (S_ISDIR(st.st_mode)) {
            walker.walk(p);
        } else {
            files.push_back(p);
        }
    }
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    return files;
}

std::vector<ResultFile> read_result_paths(const std::vector<std::filesystem::path>& paths,
                                          std::vector<std::string>& bad) {
    std::vector<ResultFile> out;
    for (const auto& f : result_file_paths(paths, bad)) {
        try {
            out.push_back(read_result_file(f));
        } catch (const UsageError& e) {
            bad.push_back(e.what());
        }
    }
    return out;
}

}  // namespace contest
