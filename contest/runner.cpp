#include "contest/runner.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "contest/errors.h"
#include "contest/load_runner.h"
#include "contest/process.h"
#include "contest/signals.h"
#include "contest/sysinfo.h"
#include "contest/version.h"
#include "loads/registry.h"

namespace contest {
namespace {

using Clock = std::chrono::steady_clock;

std::string format_duration(double s) {
    long t = std::lround(std::max(0.0, s));
    char buf[32];
    if (t >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
    return buf;
}

std::string last_lines(const std::filesystem::path& path, int n) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
        lines.push_back(line);
        if (lines.size() > static_cast<std::size_t>(n)) lines.erase(lines.begin());
    }
    std::string out;
    for (const auto& l : lines) out += "    " + l + "\n";
    return out;
}

void check_label(const std::string& label) {
    if (label.empty() || label == "." || label == ".." || label.find('/') != std::string::npos)
        throw UsageError("--label '" + label + "' cannot name a folder (no '/', not empty)");
}

// Remembers how long runs take, for the ETA.
struct Eta {
    double spent_s = 0;
    int done = 0;
    int total = 0;
    std::string text(double current_elapsed) const {
        if (done == 0) return "";
        double per = spent_s / done;
        return "  ETA " + format_duration(per * (total - done) - current_elapsed);
    }
};

nlohmann::json config_json(const RunConfig& c, const Workload& w,
                           const std::vector<const LoadInfo*>& loads) {
    nlohmann::json names = nlohmann::json::array();
    for (const auto* l : loads) names.push_back(l->name);
    nlohmann::json j = {
        {"runs", c.runs},
        {"loads", names},
        {"workload", w.describe()},
        {"jobs", effective_jobs(c.workload.jobs)},
        {"workdir", c.workload.workdir.string()},
        {"warmup_s", c.warmup_s},
        {"drop_caches", c.drop_caches},
        {"ring_processes", c.load.ring_processes ? c.load.ring_processes : 4 * online_cpus()},
        {"ring_records", c.load.ring_records},
        {"record_bytes", c.load.record_bytes},
    };
    j["io_other_dir"] = c.load.io_other_dir ? nlohmann::json(c.load.io_other_dir->string()) : nlohmann::json(nullptr);
    j["load_size_bytes"] = c.load.size_bytes ? nlohmann::json(*c.load.size_bytes) : nlohmann::json(nullptr);
    return j;
}

class ResultWriter {
public:
    ResultWriter(ResultFile& result, std::filesystem::path path) : result_(result), path_(std::move(path)) {}
    void save() { write_file_atomically(path_, to_json(result_).dump(2) + "\n"); }
    const std::filesystem::path& path() const { return path_; }

private:
    ResultFile& result_;
    std::filesystem::path path_;
};

}  // namespace

std::string utc_timestamp() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string drop_caches() {
    ::sync();
    int fd = ::open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return std::string("not dropped: ") + std::strerror(errno);
    ssize_t n = ::write(fd, "3", 1);
    int e = errno;
    ::close(fd);
    if (n != 1) return std::string("not dropped: ") + std::strerror(e);
    return "dropped";
}

RunOutcome run_contest(const RunConfig& config, Progress& progress) {
    check_label(config.label);
    if (config.runs < 1) throw UsageError("--runs must be at least 1");
    // Everything that can be refused is refused before anything is measured.
    auto loads = resolve_loads(config.loads, config.load);
    if (loads.empty()) throw UsageError("no loads to run");
    auto workload = make_workload(config.workload);

    progress.note("contest: preparing the " + workload->name() + " workload");
    workload->prepare(progress);
    LoadOptions load_options = config.load;
    load_options.workload_source = workload->source_tree();

    RunOutcome out;
    ResultFile& result = out.result;
    result.label = config.label;
    result.contest_version = kVersion;
    result.started_at = utc_timestamp();
    result.system = system_fingerprint();
    result.config = config_json(config, *workload, loads);
    result.loads = nlohmann::json::object();
    std::string stamp = result.started_at;
    std::erase(stamp, ':');
    std::filesystem::path path = config.results_dir / config.label / (stamp + ".json");
    for (int i = 2; std::filesystem::exists(path); ++i)
        path = config.results_dir / config.label / (stamp + "-" + std::to_string(i) + ".json");
    ResultWriter writer(result, path);
    out.path = path;
    writer.save();  // an unwritable results folder fails now, not after an hour
    progress.note("contest: results go to " + path.string());

    Eta eta;
    eta.total = static_cast<int>(loads.size() * config.runs);
    std::string drop_warning_given;
    try {
        for (const LoadInfo* info : loads) {
            PrivateDir dir(config.workload.workdir / "loads", std::string(info->name));
            auto load = info->make(make_load_env(dir.path(), load_options));
            if (info->does_work) progress.status(std::string(info->name) + ": preparing");
            load->prepare();
            nlohmann::json facts = load->facts();
            facts["unit"] = info->unit;
            result.loads[std::string(info->name)] = facts;

            for (unsigned i = 1; i <= config.runs; ++i) {
                auto run_started = Clock::now();
                std::string head = std::string(info->name) + "  run " + std::to_string(i) + "/" +
                                   std::to_string(config.runs);
                RunRecord rec;
                rec.load = info->name;
                rec.index = static_cast<int>(i);
                rec.load_unit = info->unit;
                rec.load_secondary_unit = info->secondary_unit;

                progress.status(head + "  cleaning" + eta.text(0));
                workload->clean();
                if (!info->drops_caches) {
                    rec.caches = "warm";
                } else if (config.drop_caches) {
                    rec.caches = drop_caches();
                    if (rec.caches != "dropped" && drop_warning_given.empty()) {
                        drop_warning_given = rec.caches;
                        std::fprintf(stderr, "contest: warning: caches %s (run as root to drop them)\n",
                                     rec.caches.c_str());
                    }
                } else {
                    rec.caches = "not dropped: --no-drop-caches";
                }

                std::optional<RunningLoad> running;
                if (info->does_work) {
                    progress.status(head + "  starting the load" + eta.text(0));
                    running.emplace(*info, *load);
                    auto s0 = running->sample();
                    interruptible_sleep(config.warmup_s);
                    auto s1 = running->sample();
                    std::optional<std::string> why = running->failure();
                    if (!why && s1.units == s0.units)
                        why = std::string(info->name) + " did no work in its " +
                              std::to_string(config.warmup_s).substr(0, 4) + " s warm-up";
                    if (why) {
                        rec.status = "load_failed";
                        rec.reason = *why;
                        running.reset();
                        std::fprintf(stderr, "contest: %s run %u: %s\n", info->name.data(), i, why->c_str());
                        result.runs.push_back(rec);
                        writer.save();
                        ++out.failed_runs;
                        ++eta.done;
                        eta.spent_s += std::chrono::duration<double>(Clock::now() - run_started).count();
                        continue;
                    }
                }

                Command cmd = workload->timed_command();
                SpawnOptions so;
                so.cwd = cmd.cwd;
                so.env_overrides = cmd.env_overrides;
                so.output = workload->log_path();
                {
                    std::ofstream truncate(workload->log_path(), std::ios::trunc);
                }
                LoadSample start_sample, end_sample;
                if (running) start_sample = running->sample();
                auto started = Clock::now();
                pid_t pid = spawn(cmd.argv, so);
                GroupGuard workload_group(pid);
                WaitHooks hooks;
                hooks.on_exit = [&] {
                    if (running) end_sample = running->sample();
                };
                hooks.tick = [&] {
                    double el = std::chrono::duration<double>(Clock::now() - started).count();
                    progress.tick(head + "  " + format_duration(el) + eta.text(el));
                };
                ExitInfo ex = wait_child(pid, started, hooks);
                workload_group.stop();  // stray descendants of the compile

                std::optional<std::string> load_died = running ? running->failure() : std::nullopt;
                if (running) {
                    LoadWindow w = load_window(*info, start_sample, end_sample);
                    rec.load_units = w.units;
                    rec.load_secondary = w.secondary;
                    rec.load_cpu_pct = w.cpu_pct;
                    running.reset();  // stop and reap the load
                }
                auto tv = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
                rec.wall_s = ex.wall_s;
                rec.user_s = tv(ex.usage.ru_utime);
                rec.sys_s = tv(ex.usage.ru_stime);
                rec.cpu_pct = ex.wall_s > 0 ? 100.0 * (rec.user_s + rec.sys_s) / ex.wall_s : 0;
                rec.max_rss_kib = ex.usage.ru_maxrss;
                rec.minor_faults = ex.usage.ru_minflt;
                rec.major_faults = ex.usage.ru_majflt;
                rec.voluntary_switches = ex.usage.ru_nvcsw;
                rec.involuntary_switches = ex.usage.ru_nivcsw;
                rec.exit_status = WIFEXITED(ex.status) ? WEXITSTATUS(ex.status) : 128 + WTERMSIG(ex.status);
                if (!ex.exited_ok()) {
                    rec.status = ex.timed_out ? "timed_out" : "workload_failed";
                    rec.reason = workload->name() + " workload " + ex.describe();
                    ++out.failed_runs;
                    progress.clear();
                    std::fprintf(stderr, "contest: %s run %u: %s; last lines of %s:\n%s", info->name.data(), i,
                                 rec.reason.c_str(), workload->log_path().c_str(),
                                 last_lines(workload->log_path(), 10).c_str());
                } else if (load_died) {
                    rec.status = "load_failed";
                    rec.reason = *load_died;
                    ++out.failed_runs;
                    std::fprintf(stderr, "contest: %s run %u: %s\n", info->name.data(), i, rec.reason.c_str());
                }
                result.runs.push_back(rec);
                writer.save();
                ++eta.done;
                eta.spent_s += std::chrono::duration<double>(Clock::now() - run_started).count();
                char line[160];
                std::snprintf(line, sizeof line, "%s  %.1f s  CPU %.0f%%", head.c_str(), rec.wall_s, rec.cpu_pct);
                std::string done = line;
                if (!rec.load_unit.empty() && rec.ok()) {
                    std::snprintf(line, sizeof line, "  load %.1f %s, %.0f%% CPU", rec.load_units,
                                  rec.load_unit.c_str(), rec.load_cpu_pct);
                    done += line;
                }
                if (!rec.ok()) done += "  " + rec.status;
                progress.note(done);
            }
        }
    } catch (const Interrupted&) {
        progress.clear();
        writer.save();
        std::fprintf(stderr, "contest: interrupted; loads stopped; %zu finished runs kept in %s\n",
                     result.runs.size(), path.c_str());
        throw;
    }
    result.finished_at = utc_timestamp();
    result.complete = true;
    writer.save();
    progress.clear();
    return out;
}

}  // namespace contest
