#include "contest/result/result_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "contest/sys/errors.h"

namespace contest {

using nlohmann::json;

json to_json(const RunRecord& r) {
    json j = {
        {"load", r.load},
        {"index", r.index},
        {"status", r.status},
        {"wall_s", r.wall_s},
        {"user_s", r.user_s},
        {"sys_s", r.sys_s},
        {"cpu_pct", r.cpu_pct},
        {"load_units", r.load_units},
        {"load_unit", r.load_unit},
        {"load_cpu_pct", r.load_cpu_pct},
        {"max_rss_kib", r.max_rss_kib},
        {"minor_faults", r.minor_faults},
        {"major_faults", r.major_faults},
        {"voluntary_switches", r.voluntary_switches},
        {"involuntary_switches", r.involuntary_switches},
        {"caches", r.caches},
        {"exit_status", r.exit_status},
    };
    if (r.round > 0) j["round"] = r.round;
    if (!r.reason.empty()) j["reason"] = r.reason;
    if (!r.load_secondary_unit.empty()) {
        j["load_secondary"] = r.load_secondary;
        j["load_secondary_unit"] = r.load_secondary_unit;
    }
    if (r.others_cpu_pct) j["others_cpu_pct"] = *r.others_cpu_pct;
    if (r.steal_pct) j["steal_pct"] = *r.steal_pct;
    if (!r.latency.is_null()) j["latency"] = r.latency;
    if (!r.perf.is_null()) j["perf"] = r.perf;
    return j;
}

json to_json(const ResultFile& f) {
    json runs = json::array();
    for (const auto& r : f.runs) runs.push_back(to_json(r));
    json j = {
        {"schema_version", kSchemaVersion},
        {"contest_version", f.contest_version},
        {"label", f.label},
        {"started_at", f.started_at},
        {"finished_at", f.finished_at.empty() ? json(nullptr) : json(f.finished_at)},
        {"complete", f.complete},
        {"system", f.system},
        {"config", f.config},
        {"loads", f.loads.is_null() ? json::object() : f.loads},
        {"runs", runs},
    };
    if (!f.stopped_because.empty()) j["stopped_because"] = f.stopped_because;
    return j;
}

namespace {

// Field access that names the file and the field when something is off.
template <typename T>
T field(const json& j, const char* name, const std::string& where) {
    auto it = j.find(name);
    if (it == j.end()) throw UsageError(where + ": missing field \"" + name + "\"");
    try {
        return it->get<T>();
    } catch (const json::exception&) {
        throw UsageError(where + ": field \"" + name + "\" has the wrong type (" +
                         std::string(it->type_name()) + ")");
    }
}

template <typename T>
T optional_field(const json& j, const char* name, T fallback, const std::string& where) {
    auto it = j.find(name);
    if (it == j.end() || it->is_null()) return fallback;
    return field<T>(j, name, where);
}

// A figure that older files, or runs that could not measure it, lack:
// absent or null reads as unmeasured, never as 0.
std::optional<double> optional_measure(const json& j, const char* name, const std::string& where) {
    auto it = j.find(name);
    if (it == j.end() || it->is_null()) return std::nullopt;
    return field<double>(j, name, where);
}

}  // namespace

ResultFile result_from_json(const json& j, const std::string& where) {
    if (!j.is_object()) throw UsageError(where + ": not a contest result (expected a JSON object)");
    int version = field<int>(j, "schema_version", where);
    if (version != kSchemaVersion)
        throw UsageError(where + ": schema_version " + std::to_string(version) +
                         " is not supported (this contest reads " + std::to_string(kSchemaVersion) +
                         ")");
    ResultFile f;
    f.label = field<std::string>(j, "label", where);
    if (f.label.empty()) throw UsageError(where + ": empty label");
    f.contest_version = optional_field<std::string>(j, "contest_version", "", where);
    f.started_at = optional_field<std::string>(j, "started_at", "", where);
    f.finished_at = optional_field<std::string>(j, "finished_at", "", where);
    f.complete = optional_field<bool>(j, "complete", false, where);
    f.system = j.value("system", json::object());
    f.config = j.value("config", json::object());
    f.loads = j.value("loads", json::object());
    f.stopped_because = optional_field<std::string>(j, "stopped_because", "", where);
    auto runs = j.find("runs");
    if (runs == j.end() || !runs->is_array()) throw UsageError(where + ": missing array \"runs\"");
    int i = 0;
    for (const auto& rj : *runs) {
        std::string w = where + ": runs[" + std::to_string(i++) + "]";
        if (!rj.is_object()) throw UsageError(w + ": not an object");
        RunRecord r;
        r.load = field<std::string>(rj, "load", w);
        r.index = field<int>(rj, "index", w);
        r.round = optional_field<int>(rj, "round", 0, w);
        r.status = field<std::string>(rj, "status", w);
        r.reason = optional_field<std::string>(rj, "reason", "", w);
        r.wall_s = field<double>(rj, "wall_s", w);
        r.user_s = optional_field<double>(rj, "user_s", 0, w);
        r.sys_s = optional_field<double>(rj, "sys_s", 0, w);
        r.cpu_pct = optional_field<double>(rj, "cpu_pct", 0, w);
        r.load_units = optional_field<double>(rj, "load_units", 0, w);
        r.load_unit = optional_field<std::string>(rj, "load_unit", "", w);
        r.load_secondary = optional_field<double>(rj, "load_secondary", 0, w);
        r.load_secondary_unit = optional_field<std::string>(rj, "load_secondary_unit", "", w);
        r.load_cpu_pct = optional_field<double>(rj, "load_cpu_pct", 0, w);
        r.max_rss_kib = optional_field<std::int64_t>(rj, "max_rss_kib", 0, w);
        r.minor_faults = optional_field<std::int64_t>(rj, "minor_faults", 0, w);
        r.major_faults = optional_field<std::int64_t>(rj, "major_faults", 0, w);
        r.voluntary_switches = optional_field<std::int64_t>(rj, "voluntary_switches", 0, w);
        r.involuntary_switches = optional_field<std::int64_t>(rj, "involuntary_switches", 0, w);
        r.others_cpu_pct = optional_measure(rj, "others_cpu_pct", w);
        r.steal_pct = optional_measure(rj, "steal_pct", w);
        r.caches = optional_field<std::string>(rj, "caches", "", w);
        r.exit_status = optional_field<int>(rj, "exit_status", 0, w);
        r.latency = rj.value("latency", json());
        r.perf = rj.value("perf", json());
        if (r.ok() && !(r.wall_s > 0)) throw UsageError(w + ": wall_s must be > 0 for an ok run");
        for (double v : {r.wall_s, r.user_s, r.sys_s, r.cpu_pct, r.load_units, r.load_cpu_pct})
            if (!std::isfinite(v)) throw UsageError(w + ": a measure is not a finite number");
        f.runs.push_back(std::move(r));
    }
    return f;
}

ResultFile read_result_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw UsageError("cannot read result file " + path.string());
    json j;
    try {
        j = json::parse(in);
    } catch (const json::parse_error& e) {
        // e.byte is the offset; turn it into a line for the user.
        std::ifstream again(path);
        std::string text((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
        auto upto = std::min<std::size_t>(e.byte, text.size());
        auto line =
            1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(upto), '\n');
        throw UsageError(path.string() + ":" + std::to_string(line) + ": malformed JSON");
    } catch (const json::exception& e) {
        // A number beyond a double (1e400) is not a parse_error.
        throw UsageError(path.string() + ": unreadable JSON (" + e.what() + ")");
    }
    ResultFile f = result_from_json(j, path.string());
    f.path = path;
    return f;
}

std::vector<ResultFile> read_result_paths(const std::vector<std::filesystem::path>& paths,
                                          std::vector<std::string>& bad) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    for (const auto& p : paths) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            for (auto it = fs::recursive_directory_iterator(p, ec);
                 !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
                if (it->is_regular_file() && it->path().extension() == ".json")
                    files.push_back(it->path());
            }
        } else if (fs::exists(p, ec)) {
            files.push_back(p);
        } else {
            bad.push_back(p.string() + ": no such file or folder");
        }
    }
    std::sort(files.begin(), files.end());
    std::vector<ResultFile> out;
    for (const auto& f : files) {
        try {
            out.push_back(read_result_file(f));
        } catch (const UsageError& e) {
            bad.push_back(e.what());
        }
    }
    return out;
}

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    fs::path tmp = path;
    tmp += ".tmp." + std::to_string(::getpid());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throw EnvironmentError("cannot write " + tmp.string() + ": " + std::strerror(errno));
    const char* p = content.data();
    std::size_t left = content.size();
    while (left > 0) {
        ssize_t n = ::write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            throw EnvironmentError("cannot write " + path.string() + ": " + std::strerror(e));
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw EnvironmentError("cannot write " + path.string() + ": " + std::strerror(e));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw EnvironmentError("cannot rename into " + path.string() + ": " + std::strerror(e));
    }
    // The rename is in the folder's data: without this, a crash right after
    // could bring back the file as it was before.
    fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
    int dir_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd >= 0) {
        ::fsync(dir_fd);
        ::close(dir_fd);
    }
}

}  // namespace contest
