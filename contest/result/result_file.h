#pragma once
// The result file (docs/contract.md "Result files", schema_version 1; every
// field in docs/results.md): one JSON file per `contest run`, rewritten
// atomically after every workload run.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/result/run_status.h"

namespace contest {

inline constexpr int kSchemaVersion = 1;

struct RunRecord {
    std::string load;
    int index = 0;  // 1-based, within the load
    int round = 0;  // 1-based round it ran in (--order rounds/shuffled); 0: none
    // --kernel guests: the guest's boot the run ran in (its round) and its
    // place among that boot's runs of the load (--runs-per-boot); 0: none.
    int boot = 0, run_in_boot = 0;
    RunStatus status = RunStatus::ok;
    std::string reason;  // why, when status != ok
    double wall_s = 0, user_s = 0, sys_s = 0, cpu_pct = 0;
    double load_units = 0;      // over the workload's window, in load_unit
    std::string load_unit;      // "" for no_load/cacherun
    double load_secondary = 0;  // second measure (e.g. passes), in load_secondary_unit
    std::string load_secondary_unit;
    double load_cpu_pct = 0;        // load's user+sys over the window / wall
    int load_restarts = 0;          // times a --load-cmd ended by itself and was started again
    bool load_not_counted = false;  // a load that works but counts nothing: Loads is "-"
    std::int64_t max_rss_kib = 0;
    std::int64_t minor_faults = 0, major_faults = 0;
    std::int64_t voluntary_switches = 0, involuntary_switches = 0;
    // The rest of the machine over the workload's window, % of one CPU:
    // busy time of everything but the workload and the load, and steal.
    // Unset when /proc/stat could not be read (and in older files).
    std::optional<double> others_cpu_pct, steal_pct;
    // The machine's speed over the window: the mean CPU time, in
    // microseconds, of one fixed unit of work contest times through the run
    // (observe/machine_speed.h). A host that takes the CPU without reporting
    // steal shows here as a slower unit. Unset when not sampled.
    std::optional<double> unit_cpu_us;
    std::string caches;  // dropped | warm | not dropped: <why>
    // The wait before the run for the machine to settle (settle.h); unset
    // in files from before it, "off" with --settle 0.
    std::optional<double> settle_wait_s;
    std::string settle;      // settled | off | not settled after N s: <why>
    int exit_status = 0;     // the workload's exit code (or 128+signal)
    nlohmann::json latency;  // null unless measured (--latency)
    nlohmann::json perf;     // null unless measured (--perf)
    // null with --timeline-hz 0; its "totals" hold the window's PSI and vmstat
    nlohmann::json timeline;
    // --boot: the kernel the run ran under, read after its boot (release,
    // /proc/cmdline, boot_id); null otherwise.
    nlohmann::json booted;
    bool ok() const { return status == RunStatus::ok; }
    // Stopped by --timeout: it took longer than every finished run, which
    // rank tests and the tables use.
    bool timed_out() const { return status == RunStatus::timed_out; }
};

struct ResultFile {
    std::string label;
    std::string contest_version;
    std::string started_at, finished_at;  // ISO 8601 UTC
    bool complete = false;
    nlohmann::json system = nlohmann::json::object();  // the fingerprint (sysinfo)
    nlohmann::json config = nlohmann::json::object();  // everything needed to repeat the run
    nlohmann::json loads = nlohmann::json::object();   // per load: facts recorded at run time
    std::vector<RunRecord> runs;
    std::string stopped_because;  // --runs auto: why no further round was run
    std::filesystem::path path;   // where it was read from (not serialised)
};

// Both directions are driven by one table of fields per record
// (result_file.cpp), so a field is named once.
nlohmann::json to_json(const RunRecord& r);
nlohmann::json to_json(const ResultFile& f);
// Throws UsageError naming the file and the field when malformed (a missing
// required field, a wrong type, an unknown status, another schema_version).
ResultFile result_from_json(const nlohmann::json& j, const std::string& where);
// The largest result file read: a real one with latency histograms is a few MiB.
inline constexpr std::uintmax_t kMaxResultFileBytes = 256u << 20;

// Reads and checks one result file. Throws UsageError naming the file and the
// real cause (permission denied, not a regular file, malformed JSON with its
// line, a bad field).
ResultFile read_result_file(const std::filesystem::path& path);
// The same for a file's text already read; name is the file's, for the messages.
ResultFile result_from_text(const std::string& text, const std::string& name);

// Every *.json under each path (files taken as they are, folders walked
// recursively, symlinks followed), sorted by path. Unreadable or malformed
// files, folders that cannot be listed and symlink loops are reported through
// `bad` (one line each, naming the path and the cause) and skipped.
std::vector<ResultFile> read_result_paths(const std::vector<std::filesystem::path>& paths,
                                          std::vector<std::string>& bad);

}  // namespace contest
