// The observers wired in: spawn's exec handshake opens the counters, `contest run
// --perf` and the timeline of every run, the kernel facts in sysinfo and the
// fingerprint warnings, and report --perf / --psi / --timeline.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "contest/analysis/build_report_model.h"
#include "contest/observe/perf_counters.h"
#include "contest/report/report.h"
#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/spawn.h"
#include "test_helpers.h"

using namespace contest;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = fs::path(CONTEST_TEST_DATA) / "observe";

std::vector<ResultFile> observe_fixtures() {
    std::vector<std::string> bad;
    auto files = read_result_paths({kFixtures / "results"}, bad);
    INFO((bad.empty() ? "" : bad.front()));
    REQUIRE(bad.empty());
    REQUIRE(files.size() == 2);
    return files;
}

// Compares with kFixtures/name; CONTEST_UPDATE_SNAPSHOTS=1 rewrites it.
void check_against(const std::string& name, const std::string& actual) {
    const fs::path path = kFixtures / name;
    if (const char* u = std::getenv("CONTEST_UPDATE_SNAPSHOTS"); u && *u == '1')
        std::ofstream(path) << actual;
    const bool same = test::slurp(path) == actual;
    if (!same) std::ofstream(fs::temp_directory_path() / ("contest-observe-" + name)) << actual;
    INFO(name << " differs; the output is in "
              << (fs::temp_directory_path() / ("contest-observe-" + name)).string());
    CHECK(same);
}

// The lines ("some", "full") of each of /proc/pressure/{cpu,memory,io} as
// the test reads them itself: the oracle for a run's PSI totals. Empty when
// this machine has no PSI (or a file cannot be read, as contest then says).
std::map<std::string, std::set<std::string>> psi_lines_here() {
    std::map<std::string, std::set<std::string>> lines;
    for (const char* resource : {"cpu", "memory", "io"}) {
        std::ifstream in(std::string("/proc/pressure/") + resource);
        if (!in) return {};
        for (std::string kind, rest; in >> kind && std::getline(in, rest);)
            lines[resource].insert(kind);
    }
    return lines;
}

// A window's PSI totals hold what this machine's /proc/pressure has: every
// line there a number of µs, and none it lacks; or, without PSI, say why.
void check_psi_totals(const json& psi, const std::map<std::string, std::set<std::string>>& here) {
    INFO("PSI totals: " << psi.dump());
    CHECK(psi.value("available", false) == !here.empty());
    if (here.empty()) {
        CHECK_FALSE(psi.value("reason", "").empty());
        return;
    }
    for (const auto& [resource, kinds] : here)
        for (const std::string kind : {"some", "full"}) {
            INFO(resource << " " << kind);
            REQUIRE(psi.contains(resource));
            const json& us = psi[resource].value(kind + "_us", json());
            if (!kinds.count(kind)) {
                CHECK(us.is_null());
                continue;
            }
            REQUIRE(us.is_number());
            CHECK(us.get<double>() >= 0);
        }
}

}  // namespace

TEST_CASE("spawn's exec handshake lets counters open on the child before it runs", "[perf]") {
    ExecGate gate;
    PerfCounters counters;
    SpawnOptions so;
    pid_t seen = -1;
    so.before_exec = [&gate] { gate.wait_in_child(); };
    so.after_fork = [&](pid_t child) {
        seen = child;
        counters.open(child);
        gate.release();
    };
    auto started = std::chrono::steady_clock::now();
    const pid_t pid = spawn({"sh", "-c", "sleep 0.1; true"}, so);
    CHECK(seen == pid);
    PerfReading reading;
    WaitHooks hooks;
    hooks.on_exit = [&] { reading = counters.read(); };
    ExitInfo ex = wait_child(pid, started, hooks);
    CHECK(ex.exited_ok());
    const PerfCount* cs = reading.find("context-switches");
    REQUIRE(cs);
    INFO(cs->reason);
    CHECK(cs->counted);
    CHECK(cs->value > 0);  // sh and its sleep both slept

    // A child that fails before exec never reaches after_fork, and the error
    // is the usual one.
    SpawnOptions bad = so;
    bad.cwd = "/nonexistent/folder";
    seen = -1;
    CHECK_THROWS_AS(spawn({"true"}, bad), EnvironmentError);
    CHECK(seen == -1);
}

TEST_CASE("after_fork's error stops the waiting child and reaches the caller", "[perf]") {
    SpawnOptions so;
    ExecGate gate;
    so.before_exec = [&gate] { gate.wait_in_child(); };
    so.after_fork = [](pid_t) { throw std::runtime_error("cannot open counters"); };
    CHECK_THROWS_WITH(spawn({"sleep", "5"}, so), "cannot open counters");
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("contest sysinfo: HZ and preemption as /proc/config.gz says, the workdir's fs",
          "[facts][e2e]") {
    test::ScratchDir dir("sysinfo");
    auto o = test::run_contest_binary({"sysinfo", "--workdir", dir.path().string()}, dir.path());
    REQUIRE(o.exit_code == 0);
    const json sys = json::parse(o.out);
    const json& k = sys.at("kernel");
    INFO(k.dump(1));
    if (::access("/proc/config.gz", R_OK) == 0) {
        CHECK(k["config_hz"] ==
              contest::test::shell_output("zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p'"));
        const std::string cfg = contest::test::shell_output("zcat /proc/config.gz");
        const std::string model = cfg.find("CONFIG_PREEMPT_RT=y") != std::string::npos     ? "rt"
                                  : cfg.find("CONFIG_PREEMPT=y") != std::string::npos      ? "full"
                                  : cfg.find("CONFIG_PREEMPT_LAZY=y") != std::string::npos ? "lazy"
                                  : cfg.find("CONFIG_PREEMPT_VOLUNTARY=y") != std::string::npos
                                      ? "voluntary"
                                      : "none";
        CHECK(k["preemption"]["config"] == model);
        CHECK(k["preemption"]["dynamic"] ==
              (cfg.find("CONFIG_PREEMPT_DYNAMIC=y") != std::string::npos));
    } else {
        WARN("no /proc/config.gz here: " << k["config"].dump());
    }
    CHECK(k["workdir"]["fs_type"] ==
          contest::test::shell_output("findmnt -no FSTYPE --target " + dir.path().string()));
    // The kernel's facts are only under "kernel" now: no second reading.
    CHECK_FALSE(sys.contains("config_hz"));
    CHECK_FALSE(sys.contains("preemption"));
}

TEST_CASE("contest run --perf --timeline-hz under io_load records counters, pressure, disk",
          "[perf][psi][timeline][e2e]") {
    test::ScratchDir dir("observe-run");
    const auto psi_here = psi_lines_here();
    auto o = test::run_contest_binary(
        {"run", "-q", "-w", "synthetic", "--synthetic-size", "20", "-n", "1", "--perf",
         "--timeline-hz", "10", "--workdir", (dir / "w").string(), "--results",
         (dir / "results").string(), "--warmup", "2", "no_load", "io_load"},
        dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(test::leftover_processes().empty());
    fs::path file;
    for (auto& e : fs::recursive_directory_iterator(dir / "results"))
        if (e.path().extension() == ".json") file = e.path();
    const json result = json::parse(test::slurp(file));
    CHECK(result["system"]["kernel"]["workdir"]["fs_type"].is_string());
    for (const auto& run : result["runs"]) {
        INFO(run["load"]);
        REQUIRE(run["status"] == "ok");
        const json& ev = run["perf"]["events"];
        for (const char* sw : {"task-clock", "context-switches", "page-faults"}) {
            INFO(sw << ": " << ev[sw].dump());
            CHECK(ev[sw]["counted"] == true);
            CHECK(ev[sw]["value"].get<double>() > 0);
        }
        for (const char* hw : {"cycles", "instructions", "cache-misses", "branch-misses"})
            CHECK((ev[hw]["counted"] == true || !ev[hw].value("reason", "").empty()));
        const json& tl = run["timeline"];
        CHECK(tl["t_s"].size() >= 3);
        CHECK(tl["marks"]["workload_start"].get<double>() <
              tl["marks"]["workload_end"].get<double>());
        const json& psi = tl["totals"]["psi"];
        check_psi_totals(psi, psi_here);
        for (auto& [name, v] : tl["totals"]["vmstat"].items())
            if (v.is_number()) CHECK(v.get<double>() >= 0);
        if (run["load"] == "io_load") {
            // io_load writes all through the window; the compile writes its objects too.
            WARN("io_load window: " << tl["totals"]["disk"].dump() << " psi io "
                                    << psi["io"].dump());
            CHECK(tl["totals"]["disk"]["written_bytes"].get<double>() > 0);
            double most = 0;
            for (const auto& v : tl["columns"]["disk_write_mib_s"])
                if (v.is_number()) most = std::max(most, v.get<double>());
            CHECK(most > 0);
            if (!psi_here.empty()) CHECK(psi["io"]["some_us"].get<double>() > 0);
        }
    }

    // The same file through report --perf --psi and --timeline.
    auto r = test::run_contest_binary({"report", "--perf", "--psi", file.string(), "--timeline",
                                       (dir / "t.svg").string(), "--load", "no_load,io_load"},
                                      dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("task-clock s") != std::string::npos);
    CHECK(r.out.find("io some%") != std::string::npos);
    const std::string svg = test::slurp(dir / "t.svg");
    CHECK(svg.find("no_load run 1") != std::string::npos);
    CHECK(svg.find("io_load run 1") != std::string::npos);
}

TEST_CASE("report --perf and --psi from fixtures, in every format", "[report][perf][psi]") {
    const auto files = observe_fixtures();
    ReportOptions options;
    options.perf = options.psi = true;
    options.print_warnings = false;
    for (const auto& [format, name] : {std::pair{"text", "report-observe.txt"},
                                       {"markdown", "report-observe.md"},
                                       {"csv", "report-observe.csv"},
                                       {"json", "report-observe.json"}}) {
        options.format = format;
        check_against(name, render_report(files, options));
    }
    options.format = "json";
    const json j = json::parse(render_report(files, options));
    REQUIRE(j["perf"]["rows"].size() > 0);
    for (const auto& row : j["perf"]["rows"]) {
        CHECK(row["ctx-switches"].get<double>() > 0);
        CHECK(row["IPC"] == "not counted");
    }
    bool reason_given = false;
    for (const auto& note : j["perf"]["notes"])
        reason_given |= note.get<std::string>().rfind("not counted: ", 0) == 0;
    CHECK(reason_given);
}

TEST_CASE("report warns when labels differ in more than the kernel, naming the fields",
          "[report][facts]") {
    auto files = observe_fixtures();
    // The second label: another HZ and preemption (the kernel), and
    // another THP mode and I/O scheduler (not the kernel).
    json& k = files[1].system["kernel"];
    k["config_hz"] = "250";
    k["preemption"]["config"] = "full";
    k["transparent_hugepage"]["enabled"] = "never";
    k["workdir"]["io_scheduler"] = "bfq";
    ReportOptions options;
    options.print_warnings = false;
    const ReportModel model = build_report_model(files, options);
    std::string all;
    for (const auto& w : model.warnings) all += w + "\n";
    INFO(all);
    CHECK(all.find("system.kernel.transparent_hugepage.enabled") != std::string::npos);
    CHECK(all.find("system.kernel.workdir.io_scheduler") != std::string::npos);
    CHECK(all.find("config_hz") == std::string::npos);
    CHECK(all.find("preemption") == std::string::npos);
}

TEST_CASE("snapshot: report --timeline --load draws the loads side by side", "[timeline][report]") {
    const auto files = observe_fixtures();
    test::ScratchDir dir("timeline-report");
    const fs::path svg = dir / "by-load.svg";
    auto o = test::run_contest_binary({"report", files[0].path.string(), "--timeline", svg.string(),
                                       "--load", "no_load", "--load", "io_load"},
                                      dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    check_against("timeline-by-load.svg", test::slurp(svg));
    auto bad = test::run_contest_binary(
        {"report", files[0].path.string(), "--timeline", svg.string(), "--run", "99"}, dir.path());
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("--run 99") != std::string::npos);
}
