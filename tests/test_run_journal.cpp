// The run's journal (run/plan/run_journal.h): a run's resolved config in one
// versioned file, written and read by one field table per record
// (sys/json_record.h), read back as untrusted text.
#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "contest/latency/probe_table.h"
#include "contest/run/rounds/run_driver.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/errors.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace contest;

namespace {

// A journal whose config has every field away from its default, so that a
// field the codec dropped or swapped would show.
RunJournal every_field_journal() {
    RunJournal j;
    j.started_at = "2026-12-05T20:00:00Z";
    RunConfig& c = j.config;
    c.label = "patched";
    c.runs = 7;
    c.loads = {"no_load", "process_load", "io_load"};
    c.workload.kind = "command";
    c.workload.workdir = "/srv/contest/work dir";
    c.workload.jobs = 6;
    c.workload.synthetic_size = 42;
    c.workload.kernel_source = "/usr/src/linux-source-6.1.tar.xz";
    c.workload.kernel_config = "defconfig";
    c.workload.workload_cmd = "sh -c 'make -j2'";
    c.workload.prepare_cmd = "make clean";
    c.workload.clean_cmd = "rm -rf out";
    c.load.workdir = "/srv/contest/work dir";
    c.load.workload_source = "/srv/src";
    c.load.values = {{"io-size-mib", "512"}, {"mem-share", "0.6"}};
    c.results_dir = "/srv/contest/results";
    c.sinks = {{SinkKind::results_database, "postgresql://lab@db/contest"}};
    c.warmup_s = 1.5;
    c.drop_caches = false;
    c.settle_s = 30;
    c.order = RunOrder::rounds;
    c.seed = 18446744073709551615ull;
    c.auto_runs = AutoRuns{1.5, 3, 20, 600, true};
    c.perf = true;
    c.timeline_hz = 25;
    latency::ProbeOptions probe;
    probe.probe = latency::find_probe("cyclic");
    REQUIRE(probe.probe);
    probe.period_ns = 250000;
    probe.cpu_share = 0.25;
    probe.method = latency::SleepMethod::itimer;
    probe.policy = latency::SchedPolicy::fifo;
    probe.priority = 80;
    probe.exec_argv = {"/bin/true", "x y"};
    probe.exec_missed_ns = -1;
    probe.raw_path = "/srv/raw.bin";
    probe.why_threshold_ns = 2000000;
    c.latency_probes = {probe};
    c.latency_dist_ns = 500;
    c.timeout_s = 900;
    c.resume = {"/srv/contest/results/patched/old.json", "/srv/contest/results/base/old.json"};
    c.vary = {{"kernel.sched_autogroup_enabled", {"0", "1"}}};
    c.vary_label = "{vary}";
    c.command_line = {"run", "--boot=a=/boot/vmlinuz-a", "--seed=3"};
    c.place = RunPlace::boot;
    c.kernels = {{"a", "/boot/vmlinuz-a"}, {"b", "/srv/linux@v6.1"}};
    c.build_config = "/srv/config";
    c.build_cache_max_gib = 7.5;
    c.vm.accel = "tcg";
    c.vm.shape = {1, 512};
    c.vm.boot_timeout_s = 60;
    c.vm.timeout_s = 1800;
    c.vm.append = "nohz=off";
    c.vm.disk_mib = 4096;
    c.vm.duet = true;
    RunConfig delegated;
    delegated.timeline_hz = 5;
    delegated.seed = 1;
    delegated.workload.workdir = delegated.load.workdir = "/mnt/work";
    c.delegated = std::make_shared<const RunConfig>(delegated);
    c.boot_appends = {{"a", "threadirqs"}};
    // A --boot run's state, the journal's boot_run section (its own fields
    // are test_boot.cpp's), and its turns, the journal's top level.
    BootState state;
    state.phase = BootPhase::detour;
    state.workdir = "/srv/contest/work dir";
    state.labels = {
        {"a", "/boot/vmlinuz-a", "/boot/vmlinuz-a", "", "ro", "6.1", "/r/a/x.json", "", "", ""}};
    j.turns.list = {{1, 0, {"no_load"}, TurnStatus::started}};
    j.turns.next = 0;
    j.boot_run = state;
    j.results = {"/srv/contest/results/patched/2026-12-06T100000Z.json",
                 "/srv/contest/results/base/2026-12-06T100000Z.json"};
    c.start_barrier = "/mnt/out";
    return j;
}

// The journal's text with the JSON at `pointer` replaced by `value`
// (removed when value is discarded).
std::string changed(const std::string& text, const std::string& pointer,
                    const nlohmann::json& value) {
    nlohmann::json j = nlohmann::json::parse(text);
    const nlohmann::json::json_pointer at(pointer);
    if (value.is_discarded())
        j[at.parent_pointer()].erase(at.back());
    else
        j[at] = value;
    return j.dump(2);
}

}  // namespace

// The sinks are kept as journals have always named the database (history_db,
// history): one written under --no-history reads back with no sink, and the
// same text.
TEST_CASE("a run's journal of --no-history reads back with no sink", "[journal]") {
    const std::string text =
        changed(changed(run_journal_text(every_field_journal()), "/config/history", false),
                "/config/history_db", "");
    const RunJournal back = run_journal_from_text(text, "journal");
    CHECK(back.config.sinks.empty());
    CHECK(nlohmann::json::parse(run_journal_text(back)) == nlohmann::json::parse(text));
}

TEST_CASE("a run's journal holds every field of its config and reads back to the same text",
          "[journal]") {
    const RunJournal j = every_field_journal();
    const std::string text = run_journal_text(j);
    const RunJournal back = run_journal_from_text(text, "journal");
    CHECK(run_journal_text(back) == text);
    const RunConfig& c = back.config;
    CHECK(back.started_at == j.started_at);
    CHECK(back.results == j.results);
    CHECK(c.label == "patched");
    CHECK(c.runs == 7);
    CHECK(c.loads == j.config.loads);
    CHECK(c.workload.workdir == "/srv/contest/work dir");
    CHECK(c.workload.workload_cmd == "sh -c 'make -j2'");
    CHECK(c.load.values.at("mem-share") == "0.6");
    REQUIRE(c.sinks.size() == 1);
    CHECK(c.sinks[0].kind == SinkKind::results_database);
    CHECK(c.sinks[0].where == "postgresql://lab@db/contest");
    CHECK(c.order == RunOrder::rounds);
    CHECK(c.seed == 18446744073709551615ull);
    REQUIRE(c.auto_runs);
    CHECK(c.auto_runs->budget_s == 600);
    CHECK(c.auto_runs->adjust_outside);
    REQUIRE(c.latency_probes.size() == 1);
    CHECK(c.latency_probes[0].probe == latency::find_probe("cyclic"));
    CHECK(c.latency_probes[0].policy == latency::SchedPolicy::fifo);
    CHECK(c.latency_probes[0].exec_missed_ns == -1);
    CHECK(c.latency_probes[0].raw_path == "/srv/raw.bin");
    CHECK(c.timeout_s == 900);
    CHECK(c.place == RunPlace::boot);
    CHECK(c.kernels.at(1).image == "/srv/linux@v6.1");
    CHECK(c.vm.shape.memory_mib == 512);
    CHECK(c.boot_appends.at(0).image == "threadirqs");
    REQUIRE(c.delegated);
    CHECK(c.delegated->timeline_hz == 5);
    CHECK_FALSE(c.delegated->delegated);
    REQUIRE(back.boot_run);
    CHECK(back.boot_run->phase == BootPhase::detour);
    CHECK(back.turns.list.at(0).status == TurnStatus::started);
    CHECK(back.turns.list.at(0).loads == std::vector<std::string>{"no_load"});
    CHECK(text.find("\"next_turn\"") == std::string::npos);  // 0: absent, as an empty plan
    CHECK(back.boot_run->labels.at(0).label == "a");
    // What is unset reads back unset.
    RunJournal plain = j;
    plain.config.auto_runs.reset();
    plain.config.timeout_s.reset();
    plain.config.latency_probes[0].raw_path.reset();
    plain.config.delegated.reset();
    plain.boot_run.reset();
    plain.turns = {};
    CHECK(run_journal_text(plain).find("boot_run") == std::string::npos);
    CHECK(run_journal_text(plain).find("turns") == std::string::npos);
    const RunJournal plain_back = run_journal_from_text(run_journal_text(plain), "journal");
    CHECK_FALSE(plain_back.config.auto_runs);
    CHECK_FALSE(plain_back.config.timeout_s);
    CHECK_FALSE(plain_back.config.latency_probes[0].raw_path);
    CHECK_FALSE(plain_back.config.delegated);
    CHECK_FALSE(plain_back.boot_run);
    CHECK(plain_back.turns.list.empty());
    // Turns in the journal of a run that names no result file (a journal
    // of no plan: a bisection's batch config, a guest's turn): refused.
    RunJournal planted = plain;
    planted.turns = j.turns;
    planted.results.clear();
    CHECK_THROWS_WITH(run_journal_from_text(run_journal_text(planted), "journal"),
                      "journal: turns: in the journal of a run that names no result file");
    // A run's turns name its labels, one a file it names.
    planted.results = {"/srv/contest/results/patched/x.json"};
    CHECK(run_journal_from_text(run_journal_text(planted), "journal").turns.list.size() == 1);
    planted.turns.list[0].label = 1;
    CHECK_THROWS_WITH(run_journal_from_text(run_journal_text(planted), "journal"),
                      Catch::Contains("turns[0]: label: no such label"));
}

TEST_CASE("a run's journal is read as untrusted: each refusal names its field", "[journal]") {
    const std::string text = run_journal_text(every_field_journal());
    struct Refused {
        std::string pointer;
        nlohmann::json value;
        std::string message;
    };
    const nlohmann::json removed = nlohmann::json::value_t::discarded;
    const Refused cases[] = {
        {"/schema", 6, "journal: schema: 6 is newer than this contest's 5"},
        // The schemas before each label's file was recorded, and before the
        // turns moved to the top level: refused, not read (a run under way
        // is stepped by its own copy of contest).
        {"/schema", 4, "journal: schema: 4 is older than this contest's 5"},
        {"/schema", 3, "journal: schema: 3 is older than this contest's 5"},
        {"/schema", 2, "journal: schema: 2 is older than this contest's 5"},
        {"/config/resume", "/srv/old.json", "journal: config: resume: not a list"},
        {"/results", "/srv/old.json", "journal: results: not a list"},
        {"/results/1", 2, "journal: results[1]: not a string"},
        {"/schema", "1", "journal: schema: not a whole number"},
        {"/schema", removed, "journal: schema: missing"},
        {"/config/runs", -1, "journal: config: runs: not a whole number >= 0"},
        {"/config/runs", 4294967296ull, "journal: config: runs: too large"},
        {"/config/vm/shape/cpus", "2", "journal: config: vm: shape: cpus: not a whole number >= 0"},
        {"/config/order", "random", "journal: config: order: 'random' is no run order"},
        {"/config/place", "ssh", "journal: config: place: 'ssh' is no place"},
        {"/config/warmup_s", "3", "journal: config: warmup_s: not a number"},
        {"/config/loads/1", 3, "journal: config: loads[1]: not a string"},
        {"/config/load/values/io-size-mib", 512,
         "journal: config: load: values.io-size-mib: not a string"},
        {"/config/latency_probes/0/probe", "cyclc",
         "latency_probes[0]: probe: 'cyclc' is no probe"},
        {"/config/latency_probes/0/priority", 2147483648ll,
         "latency_probes[0]: priority: out of range"},
        {"/config/auto_runs/max_runs", removed, "journal: config: auto_runs: max_runs: missing"},
        {"/config/history", 0, "journal: config: history: not true or false"},
        {"/config/planted", true, "journal: config: planted: a field this contest does not know"},
        {"/config/workload/workdir", "work", "config: workdir 'work' is not an absolute path"},
        {"/config/start_barrier", "out", "config: start_barrier 'out' is not an absolute path"},
        {"/config/vm/duet", removed, "journal: config: vm: duet: missing"},
        {"/config/kernels/0", "a=/boot/x", "journal: config: kernels[0]: not an object"},
        {"/config/delegated/runs", "1", "journal: config: delegated: runs: not a whole number"},
        {"/config/delegated", 7, "journal: config: delegated: not an object"},
        {"/boot_run/phase", "sleeping", "journal: boot_run: phase: 'sleeping' is no phase"},
        {"/boot_run/boots_asked", 1, "journal: boot_run: boots_asked: 1 is more than boot_max 0"},
        {"/turns/0/label", 1, "journal: turns[0]: label: no such label"},
        // A round is one of the config's 7 (its runs' index in the file).
        {"/turns/0/round", 0, "journal: turns[0]: round: 0 is not one of the run's 7 rounds"},
        {"/turns/0/round", 8, "journal: turns[0]: round: 8 is not one of the run's 7 rounds"},
        {"/turns/0/round", 4000000000ull,
         "journal: turns[0]: round: 4000000000 is not one of the run's 7 rounds"},
        {"/turns/0/round", 4294967296ull, "journal: turns[0]: round: too large"},
        {"/turns/0/status", "waiting", "journal: turns[0]: status: 'waiting' is no turn status"},
        {"/turns", nlohmann::json::object(), "journal: turns: not a list"},
        {"/next_turn", 2, "journal: next_turn: past the last turn"},
        {"/boot_run/turns", nlohmann::json::array(),
         "journal: boot_run: turns: a field this contest does not know"},
        {"/boot_run/planted", 1, "journal: boot_run: planted: a field this contest does not know"},
        {"/boot_run", "x", "journal: boot_run: not an object"},
    };
    for (const auto& [pointer, value, message] : cases) {
        INFO(pointer << " = " << value.dump());
        try {
            run_journal_from_text(changed(text, pointer, value), "journal");
            FAIL("read");
        } catch (const UsageError& e) {
            CHECK(std::string(e.what()).find(message) != std::string::npos);
            CHECK(std::string(e.what()).find('\n') == std::string::npos);
        }
    }
    CHECK_THROWS_AS(run_journal_from_text("{\"schema\": 1", "journal"), UsageError);
    CHECK_THROWS_AS(run_journal_from_text("[1]", "journal"), UsageError);
}

TEST_CASE("a run's journal keeps text as it is or refuses it: a path that is not UTF-8 is named",
          "[journal]") {
    RunJournal j = every_field_journal();
    j.config.build_config = "/srv/conf\xff";
    try {
        run_journal_text(j);
        FAIL("written");
    } catch (const UsageError& e) {
        CHECK(std::string(e.what()).find("config: build_config: '/srv/conf") != std::string::npos);
        CHECK(std::string(e.what()).find("is not UTF-8") != std::string::npos);
    }
}

TEST_CASE(
    "a run's journal file: written whole, no link followed, no FIFO waited on, its config "
    "checked as a start's",
    "[journal]") {
    test::ScratchDir dir("run-journal", test::scratch_kept_at_boot());
    RunJournal j = every_field_journal();
    j.config.vary.clear();  // --vary does not go with --boot
    j.config.auto_runs.reset();
    j.config.resume.clear();
    write_run_journal(dir / "journal.json", j);
    CHECK(read_run_journal(dir / "journal.json").config.label == "patched");
    fs::create_symlink(dir / "journal.json", dir / "link.json");
    CHECK_THROWS_AS(read_run_journal(dir / "link.json"), UsageError);
    REQUIRE(::mkfifo((dir / "fifo.json").c_str(), 0600) == 0);
    CHECK_THROWS_AS(read_run_journal(dir / "fifo.json"), UsageError);
    // j written as `name` and read: refused, saying `says`.
    const auto refused = [&](const std::string& name, const std::string& says) {
        write_run_journal(dir / name, j);
        try {
            read_run_journal(dir / name);
            FAIL("read");
        } catch (const UsageError& e) {
            CHECK(std::string(e.what()).find(name + ": config: " + says) != std::string::npos);
        }
    };
    // More runs than a start takes (a journal edited by hand): refused.
    j.config.runs = 4000000000u;
    j.turns.list[0].round = 4000000000u;
    refused("runs.json", "--runs must be at most 1000");
    j.config.runs = 7;
    j.turns.list[0].round = 1;
    // A config no start would take (--vary under --boot) is refused on reading too.
    j.config.vary = {{"kernel.sched_autogroup_enabled", {"0", "1"}}};
    refused("vary.json", "--vary does not go with --boot");
}

TEST_CASE("a journal's turns are marked in order: next is the turn a run takes next",
          "[journal][resume]") {
    JournalTurns turns;
    for (unsigned round : {1u, 1u, 2u}) turns.list.push_back({round, 0, {"no_load"}});
    turns.mark(0, TurnStatus::started);
    CHECK(turns.next == 0);  // started, not taken: a kill now leaves it to take again
    turns.mark(0, TurnStatus::done);
    CHECK(turns.next == 1);
    turns.mark(1, TurnStatus::boot_failed);  // a --boot turn whose kernel did not come up
    CHECK(turns.next == 2);
    CHECK(turns.first_not_taken() == 2);
    CHECK(turns.any_pending());
    turns.mark(2, TurnStatus::done);
    CHECK(turns.next == 3);
    CHECK(turns.first_not_taken() == 3);
    CHECK_FALSE(turns.any_pending());
    CHECK_THROWS_AS(turns.mark(3, TurnStatus::done), std::out_of_range);
}

namespace {

// A place that records what the driver gave it: each turn taken (marked
// done) until `yield_at` (yields) or `end_at` (ends).
struct RecordingPlace final : contest::JournalPlace {
    contest::JournalTurns& turns;
    std::size_t yield_at = 99, end_at = 99;
    bool mark = true;
    std::vector<std::size_t> given;
    int ends = 0;

    explicit RecordingPlace(contest::JournalTurns& t) : turns(t) {}
    contest::TurnTaken take_next() override {
        given.push_back(turns.next);
        if (turns.next == yield_at) return contest::TurnTaken::yields;
        if (turns.next == end_at) return contest::TurnTaken::ends;
        if (mark) turns.mark(turns.next, contest::TurnStatus::done);
        return contest::TurnTaken::taken;
    }
    void end() override { ++ends; }
};

}  // namespace

TEST_CASE("the one driver gives the place the journal's next turn until none is left or it yields",
          "[journal][resume][boot]") {
    JournalTurns turns;
    for (unsigned round : {1u, 1u, 2u}) turns.list.push_back({round, 0, {"no_load"}});
    SECTION("every turn taken, then the place's end") {
        turns.mark(0, TurnStatus::done);  // a resumed run: from its next turn
        RecordingPlace place(turns);
        drive_turns(turns, place);
        CHECK(place.given == std::vector<std::size_t>{1, 2});
        CHECK(place.ends == 1);
    }
    SECTION(
        "a place that yields (a reboot armed) has no end in this contest; one that ends "
        "(--boot-max) goes to its end, its turns left") {
        for (const bool yields : {true, false}) {
            JournalTurns left = turns;
            RecordingPlace place(left);
            (yields ? place.yield_at : place.end_at) = 1;
            drive_turns(left, place);
            CHECK(place.given == std::vector<std::size_t>{0, 1});
            CHECK(place.ends == (yields ? 0 : 1));
            CHECK(left.next == 1);
            CHECK(left.any_pending());
        }
    }
    SECTION("a plan with no turn left: the place's end alone") {
        for (std::size_t i = 0; i < turns.list.size(); ++i) turns.mark(i, TurnStatus::done);
        RecordingPlace place(turns);
        drive_turns(turns, place);
        CHECK(place.given.empty());
        CHECK(place.ends == 1);
    }
    SECTION("a turn said taken that does not move the journal on is refused, not looped on") {
        RecordingPlace place(turns);
        place.mark = false;
        CHECK_THROWS_AS(drive_turns(turns, place), std::logic_error);
        CHECK(place.given.size() == 1);
    }
}
