// `contest run --boot`: the run's state and its reader, the unit, the
// boot methods (grub and systemd-boot through stand-ins on PATH: only kexec
// boots for real here), and a whole run in a TCG guest that is the
// machine: it kexecs itself from kernel to kernel, round after round.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "contest/boot/boot_guard.h"
#include "contest/boot/boot_kernel.h"
#include "contest/boot/boot_state.h"
#include "contest/boot/boot_unit.h"
#include "contest/kbuild/boot_install.h"
#include "contest/result/result_file.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/sys/trusted_folder.h"
#include "contest/vm/guest.h"
#include "contest/vm/initramfs.h"
#include "contest/vm/kernel_image.h"
#include "test_helpers.h"
#include "test_skip.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& path, const std::string& text, bool executable = false) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    if (executable) fs::permissions(path, fs::perms::owner_all | fs::perms::group_read);
}

BootState sample_boot_state() {
    BootState s;
    s.workdir = "/r/work";
    s.started_at = "2026-12-02T12:00:00Z";
    s.start_release = "6.1.0-57-amd64";
    s.start_cmdline = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro";
    s.binary = "/r/.boot/contest";
    s.unit_root = "/";
    s.labels = {
        {"a", "/boot/vmlinuz-x", "/boot/vmlinuz-x", "", "root=/dev/sda1 ro panic=10",
         "6.1.0-57-amd64", "/r/a/x.json", "", "6.1.0-contest-abcd1234", R"({"commit": "abc"})"},
        {"b", "/boot/vmlinuz-y", "/boot/vmlinuz-y", "/boot/initrd.img-y", "q", "6.2", "/r/b/x.json",
         "", "", ""}};
    s.boots_asked = 1;
    s.boot_max = 3;
    s.boots = {{"id-1", "b", "6.2", "q", "2026-12-02T12:01:00Z", 2.5, "settled", "measured"}};
    return s;
}

// The sample state with its run's turns, as a journal holds them.
BootRunFile sample_boot_run() {
    JournalTurns turns;
    turns.list = {{1, 1, {"no_load"}, TurnStatus::done}, {1, 0, {"no_load"}, TurnStatus::pending}};
    turns.next = 1;
    return {sample_boot_state(), turns};
}

// text with its first `from` made `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

// Why the reader refuses text as a state, or "accepted".
std::string refusal(const std::string& text) {
    try {
        boot_state_from_text(text, "state");
    } catch (const UsageError& e) {
        return e.what();
    }
    return "accepted";
}

// Why the reader refuses text as a journal of a boot run, or "accepted".
std::string run_refusal(const std::string& text) {
    try {
        boot_run_from_journal_text(text, "state");
    } catch (const UsageError& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST_CASE("the boot state: written and read back the same, a malformed one names its field",
          "[boot]") {
    const BootState s = sample_boot_state();
    const BootState back = boot_state_from_text(boot_state_text(s), "state");
    CHECK(boot_state_text(back) == boot_state_text(s));
    CHECK(back.labels.at(1).initrd == "/boot/initrd.img-y");
    CHECK(back.boots.at(0).up_s == 2.5);
    // The run's turns are the journal's, beside the section.
    const BootRunFile run = sample_boot_run();
    const BootRunFile run_back = boot_run_from_journal_text(boot_run_text(run), "state");
    CHECK(boot_run_text(run_back) == boot_run_text(run));
    CHECK(run_back.turns.list.at(0).label == 1);
    CHECK(run_back.turns.next == 1);
    CHECK(boot_state_text(s).find("turns") == std::string::npos);

    auto refused = [&](const std::string& from, const std::string& to) {
        return refusal(replaced(boot_state_text(s), from, to));
    };
    auto run_refused = [&](const std::string& from, const std::string& to) {
        return run_refusal(replaced(boot_run_text(run), from, to));
    };
    CHECK(refused("\"phase\": \"running\"", "\"phase\": \"sleeping\"").find("phase") !=
          std::string::npos);
    CHECK(run_refused("\"next_turn\": 1", "\"next_turn\": 9") ==
          "state: next_turn: past the last turn");
    CHECK(run_refused("\"label\": 1", "\"label\": 5") == "state: turns[0]: label: no such label");
    // A section that still holds turns (an earlier contest's) is refused.
    CHECK(refused("\"note\": \"\"", "\"note\": \"\", \"turns\": []") ==
          "state: turns: a field this contest does not know");
    CHECK(refused("\"boots_asked\": 1", "\"boots_asked\": -7").find("boots_asked") !=
          std::string::npos);
    CHECK(refused("\"label\": \"a\"", "\"label\": \"../a\"").find("labels[0]: label") !=
          std::string::npos);
    // The schema is the journal's, the file's (test_run_journal.cpp): the
    // section has none of its own.
    CHECK(refused("\"note\": \"\"", "\"note\": \"\", \"schema\": 2") ==
          "state: schema: a field this contest does not know");
    CHECK(refused("\"note\": \"\"", "\"note\": \"\", \"planted\": 1") ==
          "state: planted: a field this contest does not know");
    // Text from the machine that is not UTF-8 is written all the same (a
    // step must save the state), as valid UTF-8.
    BootState odd = s;
    odd.start_cmdline = "root=/dev/sda1 \xff";
    CHECK(boot_state_from_text(boot_state_text(odd), "state").start_cmdline ==
          "root=/dev/sda1 \xEF\xBF\xBD");
    CHECK_THROWS_AS(boot_state_from_text("{\"phase\": 1", "state"), UsageError);
    CHECK_THROWS_AS(boot_state_from_text("[]", "state"), UsageError);
}

// The on-disk words of the state's closed sets: the file's contract, which
// a run under way across an upgrade of contest reads on.
const char* const kPhaseWords[] = {"running", "detour", "returning", "done", "stopped", "aborted"};
const char* const kTurnStatusWords[] = {"pending", "started", "done", "boot_failed", "interrupted"};

TEST_CASE("a boot state file reads, and is written back to the same bytes", "[boot]") {
    // tests/data/boot-run-journal.json: written by contest before its
    // phases and statuses were enums read and written from one field table
    // (its words and seed since moved to the run's journal; the state itself
    // since the journal's boot_run section, with no schema of its own; its
    // turns since the journal's, at its top level, schema 4; schema 5 since
    // a run names its labels' files); every kind of
    // field, every turn status, each method's word.
    const std::string text = test::slurp(fs::path(CONTEST_TEST_DATA) / "boot-run-journal.json");
    const BootRunFile run = boot_run_from_journal_text(text, "state");
    const BootState& s = run.state;
    CHECK(boot_run_text(run) == text);
    CHECK(s.phase == BootPhase::detour);
    CHECK(s.method == BootMethod::systemd_boot);
    CHECK(s.workdir == "/srv/contest/work");
    CHECK(s.stop_on_failure);
    REQUIRE(run.turns.list.size() == 5);
    CHECK(run.turns.list[1].status == TurnStatus::boot_failed);
    CHECK(run.turns.list[4].loads.empty());
    CHECK(run.turns.next == 4);
    CHECK(s.labels.at(0).cannot_boot_next == "the running kernel has no kexec_load");
    CHECK(s.boots.at(2).expected == "start");
    CHECK(s.boots.at(2).up_s == 30);

    // Each word of each closed set in place of the file's: read, and
    // written back the same.
    struct Words {
        std::string field, in_file;
        std::vector<std::string> words;
    };
    const Words closed[] = {
        {"phase", "detour", {std::begin(kPhaseWords), std::end(kPhaseWords)}},
        {"status", "done", {std::begin(kTurnStatusWords), std::end(kTurnStatusWords)}},
        {"method", "systemd-boot", {"kexec", "grub"}},
    };
    auto field = [](const std::string& name, const std::string& word) {
        return "\"" + name + "\": \"" + word + "\"";
    };
    for (const auto& [name, in_file, words] : closed)
        for (const auto& word : words) {
            INFO(name << " " << word);
            const std::string changed = replaced(text, field(name, in_file), field(name, word));
            CHECK(boot_run_text(boot_run_from_journal_text(changed, "state")) == changed);
        }
}

TEST_CASE("a boot state's unknown or mistyped closed word is refused naming its field", "[boot]") {
    const std::string text = test::slurp(fs::path(CONTEST_TEST_DATA) / "boot-run-journal.json");
    struct Refused {
        const char *from, *to, *message;
    };
    // clang-format off
    const Refused cases[] = {
        {R"("phase": "detour")", R"("phase": "Detour")", "boot_run: phase: 'Detour' is no phase"},
        {R"("phase": "detour")", R"("phase": 2)", "boot_run: phase: not a string"},
        {R"("status": "boot_failed")", R"("status": "failed")", "turns[1]: status: 'failed' is no turn status"},
        {R"("status": "done")", R"("status": null)", "turns[0]: status: not a string"},
        {R"("method": "systemd-boot")", R"("method": "lilo")", "boot_run: method: 'lilo' is no boot method"},
        {R"("up_s": 12.25)", R"("up_s": "12")", "boot_run: boots[0]: up_s: not a number"},
        {R"("boot_max": 12)", R"("boot_max": 4294967296)", "boot_run: boot_max: too large"},
        {R"("boot_max": 12)", R"("boot_max": 1.5)", "boot_run: boot_max: not a whole number >= 0"},
        {R"("stop_on_failure": true)", R"("stop_on_failure": 1)", "boot_run: stop_on_failure: not true or false"},
        {R"("loads": [])", R"("loads": [3])", "turns[4]: loads[0]: not a string"},
        {R"("turns": [)", R"("turns": {}, "results": [)", "turns: not a list"},
        {R"("turns": [)", R"("x": 1, "turns": [)", "x: a field this contest does not know"},
        {R"("note": "")", R"("nothing": "")", "boot_run: note: missing"},
        {R"("label": 0)", R"("label": 2)", "turns[1]: label: no such label"},
        {R"("next_turn": 4)", R"("next_turn": 6)", "next_turn: past the last turn"},
    };
    // clang-format on
    for (const auto& c : cases) {
        INFO(c.to);
        CHECK(run_refusal(replaced(text, c.from, c.to)) == std::string("state: ") + c.message);
    }
}

namespace {

// A journal holding state as its boot_run section (and a field of the
// run's section, which the boot layer does not read, in place of the config).
std::string journal_holding(const BootState& state) {
    return nlohmann::json{{"schema", kRunJournalSchema},
                          {"started_at", "as it was"},
                          {"boot_run", boot_state_json(state)}}
        .dump(2);
}

// A boot state whose paths are those of a run in folder.
BootState boot_state_in(const fs::path& folder) {
    BootState s = sample_boot_state();
    s.binary = (folder / ".boot/contest").string();
    s.labels[0].result = (folder / "a/x.json").string();
    s.labels[1].result = (folder / "b/x.json").string();
    return s;
}

// A machine for --boot starts that boots nothing: a scratch folder (not
// under /tmp, which a --boot run refuses), a root with grub's and
// systemd-boot's entries for the unit, and stand-ins on PATH for the tools
// a step runs (systemctl too: a machine under systemd is rebooted through
// it), which record what they were asked, one line a call.
struct StandInMachine {
    explicit StandInMachine(const std::string& tag)
        : dir("boot-" + tag, test::scratch_kept_at_boot()) {
        for (const char* tool : {"grub-reboot", "grub-editenv", "bootctl", "reboot", "systemctl"})
            write_file(
                bin / tool,
                std::string("#!/bin/sh\necho \"") + tool + " $*\" >> '" + asked.string() + "'\n",
                true);
        write_file(root / "boot/grub/grub.cfg",
                   "menuentry 'Debian, with Linux 6.1-rt' --class debian {\n"
                   "\tlinux /boot/vmlinuz-6.1-rt ro\n}\n"
                   "menuentry 'Debian, with Linux 6.1' --class debian {\n"
                   "\tlinux /boot/vmlinuz-6.1 ro\n}\n");
        write_file(root / "boot/loader/entries/rt.conf",
                   "title rt\nlinux /vmlinuz-6.1-rt\noptions ro\n");
        write_file(root / "boot/loader/entries/std.conf",
                   "title std\nlinux /vmlinuz-6.1\noptions ro\n");
        const char* p = std::getenv("PATH");
        path = p ? p : "/usr/bin:/bin";
        ::setenv("PATH", (bin.string() + ":" + path).c_str(), 1);
    }
    ~StandInMachine() { ::setenv("PATH", path.c_str(), 1); }
    StandInMachine(const StandInMachine&) = delete;
    StandInMachine& operator=(const StandInMachine&) = delete;

    // A grub run of two labels, one round, into results, its unit under
    // unit_root (the machine's root); `more` words before the load (a
    // --workdir of its own, or the scratch's work/).
    std::vector<std::string> grub_start(const fs::path& results,
                                        const std::vector<std::string>& more = {},
                                        const fs::path& unit_root = {}) const {
        // clang-format off
        std::vector<std::string> words = {
            "run", "--boot", "rt=Debian, with Linux 6.1-rt", "--boot", "std=Debian, with Linux 6.1",
            "--boot-method", "grub", "--boot-root", (unit_root.empty() ? root : unit_root).string(),
            "--results", results.string(), "-n", "1", "-w", "command", "--workload-cmd", "true", "-q"};
        // clang-format on
        if (std::none_of(more.begin(), more.end(),
                         [](const std::string& w) { return w.starts_with("--workd"); }))
            words.insert(words.end(), {"--workdir", (dir / "work").string()});
        words.insert(words.end(), more.begin(), more.end());
        words.emplace_back("no_load");
        return words;
    }
    test::Outcome contest(const std::vector<std::string>& words) const {
        return test::run_contest_binary(words, dir.path(), dir.path());
    }
    // The next boot's step, as the unit would start it (told its boot is
    // another by renaming the ones seen: this machine's boot_id never changes).
    test::Outcome next_step(const fs::path& results) const {
        BootState before = read_boot_state(results / kRunJournalName);
        for (auto& seen : before.boots) seen.boot_id = "earlier-" + seen.boot_id;
        write_boot_state(results / kRunJournalName, before);
        return contest({"run", "--boot-continue", (results / kRunJournalName).string()});
    }

    test::ScratchDir dir;
    fs::path root = dir / "root", bin = dir / "bin", asked = dir / "asked";
    std::string path;
};

}  // namespace

// --boot's bounds, --boot-on-failure stop and --boot-max, on the stand-in
// machine: what they test is the run's state machine (when a turn ends the
// run, when the bound does), the same whichever way a kernel is booted, so
// they need no guest. The stand-in reboot boots nothing: each later step
// finds the machine in its own kernel, not the label's, so every turn is
// boot_failed. A real guest's turns, measured and failed, are tested in
// [vm-boot] and [vm-boot-failures].
TEST_CASE("run --boot --boot-on-failure stop: the first kernel that does not come up ends the run",
          "[boot][e2e]") {
    const StandInMachine machine("bounds");
    const fs::path results = machine.dir / "results";
    const auto state = [&] { return read_boot_state(results / kRunJournalName); };
    const auto turns = [&] { return read_boot_run(results / kRunJournalName).turns.list; };
    const auto started =
        machine.contest(machine.grub_start(results, {"--boot-on-failure", "stop"}));
    INFO(started.err);
    REQUIRE(started.exit_code == 0);
    REQUIRE(state().boots_asked == 1);
    const auto o = machine.next_step(results);
    INFO(o.err);
    CHECK(o.exit_code == 1);  // the run ended with a failed run in it
    const BootState s = state();
    const std::vector<JournalTurn> t = turns();
    CHECK(s.phase == BootPhase::stopped);
    REQUIRE(t.size() == 2);
    CHECK(t[0].status == TurnStatus::boot_failed);
    CHECK(t[1].status == TurnStatus::pending);
    CHECK(s.boots_asked == 1);
    CHECK(s.note.find("not " + s.labels.at(t[0].label).label + "'s") != std::string::npos);
    REQUIRE(s.boots.size() == 1);
    CHECK(s.boots[0].cmdline == s.start_cmdline);
    // Nothing asked of the machine after the failure, nothing left to boot.
    CHECK(test::slurp(machine.asked) ==
          "grub-reboot " + s.labels.at(t[0].label).kernel + "\nreboot \n");
    CHECK_FALSE(fs::exists(boot_unit_path(machine.root)));
    CHECK_FALSE(fs::exists(results / ".boot"));
    std::vector<std::string> bad;
    const auto files = read_result_paths({results / s.labels.at(t[0].label).label}, bad);
    REQUIRE(files.size() == 1);
    CHECK_FALSE(files[0].complete);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("run --boot --boot-max 2 of 3 boots: one turn, the bound, the rest left pending",
          "[boot][e2e]") {
    const StandInMachine machine("bounds");
    const fs::path results = machine.dir / "results";
    const auto state = [&] { return read_boot_state(results / kRunJournalName); };
    const auto turns = [&] { return read_boot_run(results / kRunJournalName).turns.list; };
    const auto started = machine.contest(machine.grub_start(results, {"--boot-max", "2"}));
    INFO(started.err);
    REQUIRE(started.exit_code == 0);
    CHECK(state().boot_max == 2);
    const auto o = machine.next_step(results);
    INFO(o.err);
    CHECK(o.exit_code == 1);  // the run ended with a failed run in it
    const BootState s = state();
    const std::vector<JournalTurn> t = turns();
    CHECK(s.phase == BootPhase::stopped);
    CHECK(s.note == "stopped at --boot-max 2 boots");
    REQUIRE(t.size() == 2);
    CHECK(t[0].status == TurnStatus::boot_failed);
    CHECK(t[1].status == TurnStatus::pending);
    // The bound counts the boot the run would ask next: none asked past it.
    CHECK(s.boots_asked == 1);
    CHECK(test::slurp(machine.asked) ==
          "grub-reboot " + s.labels.at(t[0].label).kernel + "\nreboot \n");
    std::vector<std::string> bad;
    const auto files = read_result_paths({results / s.labels.at(t[0].label).label}, bad);
    REQUIRE(files.size() == 1);
    CHECK_FALSE(files[0].complete);  // a run stopped short
    CHECK_FALSE(fs::exists(boot_unit_path(machine.root)));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("the boot state is read as untrusted: no link followed, no FIFO waited on", "[boot]") {
    test::ScratchDir dir("boot-state-read", test::scratch_kept_at_boot());
    write_file(dir / "state.json", journal_holding(boot_state_in(dir.path())));
    CHECK(read_boot_state(dir / "state.json").started_at == "2026-12-02T12:00:00Z");
    // One write replaces the state, the rest of the journal kept.
    BootState next = boot_state_in(dir.path());
    next.note = "replaced";
    write_boot_state(dir / "state.json", next);
    const nlohmann::json written = nlohmann::json::parse(test::slurp(dir / "state.json"));
    CHECK(written["started_at"] == "as it was");
    CHECK(read_boot_state(dir / "state.json").note == "replaced");
    // A journal of another schema, or of a run that is not a --boot run,
    // is refused in one line.
    write_file(dir / "newer.json",
               replaced(journal_holding(next), "\"schema\": " + std::to_string(kRunJournalSchema),
                        "\"schema\": " + std::to_string(kRunJournalSchema + 1)));
    CHECK_THROWS_WITH(read_boot_state(dir / "newer.json"),
                      Catch::Matchers::Contains("is newer than this contest's " +
                                                std::to_string(kRunJournalSchema)));
    write_file(dir / "host.json",
               nlohmann::json{{"schema", kRunJournalSchema}, {"started_at", ""}}.dump());
    CHECK_THROWS_WITH(read_boot_state(dir / "host.json"),
                      Catch::Matchers::EndsWith("host.json: boot_run: missing (the journal of a "
                                                "run that is not a --boot run)"));
    fs::create_symlink(dir / "state.json", dir / "link.json");
    CHECK_THROWS_AS(read_boot_state(dir / "link.json"), EnvironmentError);
    REQUIRE(::mkfifo((dir / "fifo.json").c_str(), 0600) == 0);
    CHECK_THROWS_AS(read_boot_state(dir / "fifo.json"), EnvironmentError);
}

TEST_CASE(
    "a label's command line: the running one's without the loader's words, its own after, "
    "panic=10 unless given",
    "[boot]") {
    CHECK(base_cmdline("BOOT_IMAGE=/vmlinuz-6.1 root=UUID=1 ro initrd=/initrd.img quiet") ==
          "root=UUID=1 ro quiet");
    CHECK(label_cmdline("root=UUID=1 ro", "preempt=full") ==
          "root=UUID=1 ro preempt=full panic=10");
    CHECK(label_cmdline("root=UUID=1 ro", "panic=30") == "root=UUID=1 ro panic=30");
    CHECK(label_cmdline("console=ttyS0 panic=-1", "") == "console=ttyS0 panic=-1");
}

TEST_CASE("the unit: installed under a root folder and removed, systemd-analyze verifies it",
          "[boot]") {
    test::ScratchDir dir("boot-unit");
    const fs::path root = dir / "root";
    const fs::path binary = dir / "bin dir" / "contest";
    write_file(binary, "#!/bin/sh\n", true);
    // % is systemd's specifier everywhere, $ its variable in ExecStart.
    const fs::path state = dir / "results 100% $HOME/.run-journal.json";
    install_boot_unit(root, binary, state);
    const fs::path unit = boot_unit_path(root);
    REQUIRE(fs::is_regular_file(unit));
    const std::string text = test::slurp(unit);
    CHECK(text.find("After=multi-user.target graphical.target") != std::string::npos);
    CHECK(text.find("Type=exec") != std::string::npos);
    CHECK(text.find("RequiresMountsFor=\"" + (dir / "results 100%% $HOME").string() + "\"\n") !=
          std::string::npos);
    CHECK(text.find(" run --boot-continue \"" + (dir / "results 100%% $$HOME").string() +
                    "/.run-journal.json\"\n") != std::string::npos);
    // The unit names its run: the state read back as it was given.
    CHECK(boot_unit_state(root) == state);
    CHECK(unit_path_problem(dir / "a\nb") != "");
    CHECK(unit_path_problem(state) == "");
    CHECK(text.find("WantedBy=multi-user.target") != std::string::npos);
    CHECK(text.find("ExecStart=\"" + binary.string() + "\" run --boot-continue \"") !=
          std::string::npos);
    CHECK(fs::is_symlink(root / "etc/systemd/system/multi-user.target.wants" / kBootUnitName));
    // verify reads the unit as systemd would; its binary must exist. make
    // test installs systemd (TEST_DEPS), so its absence is a failure, not a pass.
    REQUIRE(std::system("command -v systemd-analyze >/dev/null") == 0);
    const std::string out =
        test::shell_output("systemd-analyze verify '" + unit.string() + "' 2>&1; echo rc=$?");
    INFO(out);
    CHECK(out.find("rc=0") != std::string::npos);
    // verify exits 0 on a setting it ignores (a path it cannot parse): none may be.
    CHECK(out.find("ignoring") == std::string::npos);
    CHECK(remove_boot_unit(root));
    CHECK_FALSE(fs::exists(unit));
    std::error_code ec;
    CHECK_FALSE(
        fs::exists(root / "etc/systemd/system/multi-user.target.wants" / kBootUnitName, ec));
    CHECK_FALSE(remove_boot_unit(root));
}

TEST_CASE(
    "run --boot --boot-method grub / systemd-boot: the entry checked, set one-shot and the machine "
    "rebooted (stand-ins), --boot-status says so, --boot-abort leaves nothing behind",
    "[boot][e2e]") {
    for (const std::string method : {"grub", "systemd-boot"}) {
        DYNAMIC_SECTION(method) {
            const StandInMachine machine(method);
            const test::ScratchDir& dir = machine.dir;
            const fs::path &root = machine.root, &asked = machine.asked;
            const std::string first = method == "grub" ? "Debian, with Linux 6.1-rt" : "rt";
            const std::string second = method == "grub" ? "Debian, with Linux 6.1" : "std";
            const fs::path results = dir / "results";
            auto o =
                test::run_contest_binary({"run",       "--boot",         "rt=" + first,
                                          "--boot",    "std=" + second,  "--boot-method",
                                          method,      "--boot-root",    root.string(),
                                          "--results", results.string(), "-n",
                                          "2",         "--seed",         "3",
                                          "-w",        "command",        "--workload-cmd",
                                          "true",      "--workdir",      (dir / "work").string(),
                                          "-q",        "no_load"},
                                         dir.path(), dir.path());
            INFO(o.err);
            CHECK(o.exit_code == 0);
            const BootState s = read_boot_state(results / kRunJournalName);
            const std::vector<JournalTurn> t = read_boot_run(results / kRunJournalName).turns.list;
            REQUIRE(t.size() == 4);
            const std::string first_turn = s.labels.at(t.front().label).kernel;
            const std::string set = method == "grub" ? "grub-reboot " + first_turn
                                                     : "bootctl set-oneshot " + first_turn;
            CHECK(test::slurp(asked) == set + "\nreboot \n");
            CHECK(s.boots_asked == 1);
            CHECK(s.boot_max == 8);
            CHECK(fs::exists(boot_unit_path(root)));
            // Rounds: each label once in every round.
            std::map<unsigned, std::set<std::size_t>> rounds;
            for (const auto& each : t) rounds[each.round].insert(each.label);
            CHECK(rounds == std::map<unsigned, std::set<std::size_t>>{{1, {0, 1}}, {2, {0, 1}}});

            auto status = test::run_contest_binary(
                {"run", "--boot-status", "--results", results.string()}, dir.path(), dir.path());
            CHECK(status.exit_code == 0);
            CHECK(status.out.find("running") != std::string::npos);
            CHECK(status.out.find("0 taken, 0 failed, 4 to go") != std::string::npos);

            // An unknown entry is refused before any reboot.
            auto bad = test::run_contest_binary(
                {"run", "--boot", "x=nope", "--boot", "y=" + second, "--boot-method", method,
                 "--boot-root", root.string(), "--results", (dir / "r2").string(), "-w", "command",
                 "--workload-cmd", "true", "--workdir", (dir / "work").string(), "-q", "no_load"},
                dir.path(), dir.path());
            CHECK(bad.exit_code == 3);
            CHECK(bad.err.find("nope") != std::string::npos);

            // The boots after the first, as the unit would start them: none
            // comes up in the entry asked (the stand-in reboot does not
            // reboot), so each turn is boot_failed in the machine's own
            // kernel and the next entry is asked for, in the planned order.
            // This machine's boot_id never changes: each step is told its
            // boot is another by renaming the ones seen.
            for (std::size_t turn = 1; turn < 3; ++turn) {
                auto step = machine.next_step(results);
                INFO(step.err);
                CHECK(step.exit_code == 0);
                const BootRunFile after_run = read_boot_run(results / kRunJournalName);
                const BootState& after = after_run.state;
                CHECK(after_run.turns.list[turn - 1].status == TurnStatus::boot_failed);
                REQUIRE(after.boots.size() == turn);
                CHECK(after.boots.back().expected == s.labels.at(t[turn - 1].label).label);
                CHECK(after.boots.back().outcome.starts_with("boot_failed: booted "));
                CHECK(after_run.turns.next == turn);
                CHECK(after.boots_asked == turn + 1);
                // Run again in the same boot: nothing done twice.
                auto again = test::run_contest_binary(
                    {"run", "--boot-continue", (results / kRunJournalName).string()}, dir.path(),
                    dir.path());
                CHECK(again.exit_code == 0);
                CHECK(again.err.find("recorded already") != std::string::npos);
                CHECK(read_boot_state(results / kRunJournalName).boots.size() == turn);
            }
            std::string asked_so_far;
            for (std::size_t turn = 0; turn < 3; ++turn)
                asked_so_far += (method == "grub" ? "grub-reboot " : "bootctl set-oneshot ") +
                                s.labels.at(t[turn].label).kernel + "\nreboot \n";
            CHECK(test::slurp(asked) == asked_so_far);
            std::vector<std::string> unreadable;
            const auto failed =
                read_result_paths({results / s.labels.at(t[0].label).label}, unreadable);
            REQUIRE(failed.size() == 1);
            REQUIRE(failed[0].runs.size() == 1);
            CHECK(failed[0].runs[0].status == RunStatus::boot_failed);
            CHECK(failed[0].runs[0].round == 1);

            auto abort = test::run_contest_binary(
                {"run", "--boot-abort", "--results", results.string()}, dir.path(), dir.path());
            INFO(abort.err);
            CHECK(abort.exit_code == 0);
            CHECK(read_boot_state(results / kRunJournalName).phase == BootPhase::aborted);
            CHECK_FALSE(fs::exists(boot_unit_path(root)));
            CHECK_FALSE(fs::exists(s.binary));
            CHECK_FALSE(fs::exists(results / ".boot"));
            CHECK(fs::is_empty(root / "etc/systemd/system/multi-user.target.wants"));
            // The one-shot entry cleared (the reboot asked may not have
            // happened), and nothing more asked of the machine.
            const std::string clear =
                method == "grub" ? "grub-editenv - unset next_entry" : "bootctl set-oneshot ";
            CHECK(test::slurp(asked) == asked_so_far + clear + "\n");
            CHECK(test::leftover_processes().empty());
        }
    }
}

namespace {

std::string nul_separated(const std::vector<std::string>& words) {
    std::string text;
    for (const auto& w : words) text += w + '\0';
    return text;
}

}  // namespace

namespace {

// A state the guest wrote, read on the host: its text checked as any
// state's, but not its paths, which name the guest's folders (/mnt/out).
BootRunFile guest_boot_run(const fs::path& path) {
    return boot_run_from_journal_text(test::slurp(path), path.string());
}

BootState guest_boot_state(const fs::path& path) {
    return boot_state_from_journal_text(test::slurp(path), path.string());
}

// A TCG guest that is the machine of a --boot run: its scratch disk holds
// the unit's root, the workdir and TMPDIR (QEMU keeps the disk across the
// guest's kexecs), its results share the run's results; its first boot
// runs `contest run` with `words` after these.
struct BootMachine {
    // Not under /tmp: the state is read back here, and a folder under a
    // sticky /tmp is refused as one others could change.
    test::ScratchDir dir{"vm-boot", test::scratch_kept_at_boot()};
    KernelImage kernel;
    Initramfs initramfs;
    GuestBoot boot;
    fs::path out, disk;
    std::string image;  // KERNEL for --boot: the image and the initramfs

    BootMachine() {
        Progress quiet(Progress::Mode::kQuiet);
        kernel = resolve_kernel_image(test::debian_kernel_package(),
                                      test::vm_test_workdir() / "vm" / "cache", quiet);
        initramfs = build_initramfs(kernel, dir / "initramfs.cpio", InitMode::boot_machine);
        const fs::path seed = dir / "seed";
        disk = dir / "disk.img";
        out = dir / "out";
        for (const char* d : {"root", "work", "tmp"}) fs::create_directories(seed / d);
        fs::permissions(seed / "tmp", fs::perms::all | fs::perms::sticky_bit);
        REQUIRE(std::system(("truncate -s 512M " + disk.string() + " && mkfs.ext4 -q -F -d " +
                             seed.string() + " " + disk.string())
                                .c_str()) == 0);
        fs::create_directories(out);
        image = kernel.image.string() + ":" + initramfs.path.string();
        boot.kernel = kernel.image;
        boot.initramfs = initramfs.path;
        boot.scratch_disk = disk;
        boot.out_dir = out;
        boot.console_log = dir / "console.log";
        boot.accel = Accel::tcg;
        // One CPU: a --boot run's turns need no second, and under TCG a
        // second vCPU is a second host thread taken from the tests beside.
        boot.shape.cpus = 1;
        boot.reboot_resets = true;
        boot.boot_timeout_s = 300;
        boot.timeout_s = 1200;
    }

    // Runs the machine until it powers off; tick (every 200 ms) may throw
    // to cut its power, QEMU killed with the disk as it is.
    GuestOutcome run(const std::vector<std::string>& words,
                     const std::function<void(double, bool)>& tick = {}) {
        std::vector<std::string> argv = {CONTEST_BINARY,
                                         "run",
                                         "--boot-root",
                                         "/mnt/root",
                                         "--results",
                                         "/mnt/out/results",
                                         "--workdir",
                                         "/mnt/work",
                                         "-w",
                                         "command",
                                         "--workload-cmd",
                                         workload,
                                         "--warmup",
                                         "0",
                                         "--timeline-hz",
                                         "0"};
        argv.insert(argv.end(), words.begin(), words.end());
        std::ofstream(out / "argv", std::ios::binary) << nul_separated(argv);
        return run_guest(boot, tick);
    }

    // The same disk and share booted again from the default kernel, as
    // after a power cut: the unit on the disk takes the run on.
    GuestOutcome power_on() {
        fs::remove(out / "argv");
        return run_guest(boot);
    }

    std::string workload = "true";
};

struct PowerCut {};

// Whether the machine's disk still holds the unit.
bool unit_on_disk(const fs::path& disk) {
    const std::string unit =
        test::shell_output("debugfs -R 'stat /root/etc/systemd/system/contest-boot.service' " +
                           disk.string() + " 2>&1");
    return unit.find("File not found") == std::string::npos;
}

}  // namespace

TEST_CASE(
    "run --boot in a TCG guest that is the machine: each round kexecs into each label's kernel, "
    "its runs record the kernel they ran under, a kernel that panics is boot_failed and the run "
    "goes on from the default kernel, the machine comes back to it and the unit is gone",
    "[vm][vm-boot][e2e]") {
    REQUIRE_FALSE(test::debian_kernel_package().empty());
    BootMachine machine;
    const KernelImage& kernel = machine.kernel;
    const fs::path out = machine.out, disk = machine.disk;
    const std::string& image = machine.image;
    // a: the image under a command line of its own; c: the same, but its
    // init does not exist, so its kernel panics (and panic=-1 resets the
    // machine into QEMU's -kernel, its default). Two measured labels, each
    // booted under its own command line, are the power-cut test's a and b.
    // A truncated image is refused before any reboot: on the host, in
    // "run --boot: a kernel image cut short, or no bzImage, is refused ..."
    // (the check reads the file, not the machine: no boot of its own here).
    const GuestOutcome o =
        machine.run({"--boot", "a=" + image, "--boot", "c=" + image, "--boot-append",
                     "a=contest_label=a", "--boot-append", "c=contest_label=c rdinit=/no-such-init",
                     "-n", "1", "--seed", "11", "no_load"});
    const GuestBoot& boot = machine.boot;
    INFO(o.failure << "\nconsole: " << console_tail(boot.console_log, 30)
                   << "\nguest log: " << test::slurp(out / "guest.log"));
    REQUIRE(o.finished);
    CHECK(test::leftover_processes().empty());

    const fs::path host_results = out / "results";
    const BootState s = guest_boot_state(host_results / kRunJournalName);
    const std::vector<JournalTurn> t = guest_boot_run(host_results / kRunJournalName).turns.list;
    CHECK(s.phase == BootPhase::done);
    // One round: a round after round, in its shuffled order, is the stand-in
    // machine's test (-n 2 there); here each boot costs ~18 s of TCG.
    REQUIRE(t.size() == 2);
    // Every boot the machine made after the first: one a turn (c's are the
    // default kernel's, come back after c's panic), and the one back,
    // unless the last turn was c's, which left the machine in it already.
    const bool c_last = s.labels.at(t.back().label).label == "c";
    REQUIRE(s.boots.size() == t.size() + (c_last ? 0 : 1));
    std::size_t b = 0;
    std::map<std::string, std::set<unsigned>> measured;
    for (const auto& turn : t) {
        const std::string& label = s.labels.at(turn.label).label;
        const BootSeen& seen = s.boots.at(b++);
        CHECK(seen.expected == label);
        if (label == "c") {
            CHECK(turn.status == TurnStatus::boot_failed);
            CHECK(seen.outcome.starts_with("boot_failed: booted "));
            CHECK(seen.cmdline == s.start_cmdline);
        } else {
            CHECK(turn.status == TurnStatus::done);
            CHECK(seen.outcome == "measured");
            CHECK(seen.cmdline.find("contest_label=" + label) != std::string::npos);
            measured[label].insert(turn.round);
        }
    }
    if (!c_last) {
        CHECK(s.boots.back().expected == "start");
        CHECK(s.boots.back().outcome == "back");
    }
    CHECK(s.boots.back().cmdline == s.start_cmdline);
    CHECK(measured == std::map<std::string, std::set<unsigned>>{{"a", {1}}});
    std::set<std::string> boot_ids;
    for (const auto& seen : s.boots) boot_ids.insert(seen.boot_id);
    CHECK(boot_ids.size() == s.boots.size());

    // The files: one per label, one group, every run under the kernel it
    // recorded (read inside the run's boot).
    std::set<std::string> groups;
    for (const std::string label : {"a", "c"}) {
        std::vector<std::string> bad;
        const auto files = read_result_paths({host_results / label}, bad);
        REQUIRE(files.size() == 1);
        const ResultFile& f = files.front();
        CHECK(f.complete);
        groups.insert(f.config["vary"]["group"].get<std::string>());
        REQUIRE(f.runs.size() == 1);
        std::set<int> rounds;
        for (const auto& r : f.runs) {
            rounds.insert(r.round);
            CHECK(r.booted["release"] == kernel.release);
            if (label == "c") {
                CHECK(r.status == RunStatus::boot_failed);
                CHECK(r.reason.find("not c's") != std::string::npos);
            } else {
                CHECK(r.ok());
                CHECK(r.booted["cmdline"].get<std::string>().find("contest_label=" + label) !=
                      std::string::npos);
                // Each run records the fingerprint of the boot it ran in.
                CHECK(r.booted["system"]["kernel"]["cmdline"] == r.booted["cmdline"]);
            }
        }
        // The file's fingerprint is its label's kernel's (c's: the default
        // kernel's, the only one its turns found).
        if (label != "c")
            CHECK(f.system["kernel"]["cmdline"].get<std::string>().find("contest_label=" + label) !=
                  std::string::npos);
        CHECK(rounds == std::set<int>{1});
    }
    CHECK(groups.size() == 1);
    // The unit was removed from the machine's root (the scratch disk's),
    // contest's copies of itself and of the kernels from the results.
    CHECK_FALSE(unit_on_disk(disk));
    CHECK_FALSE(fs::exists(host_results / ".boot"));
    CHECK_FALSE(fs::exists(host_results / ".run-journal.lock"));
}

TEST_CASE(
    "run --boot in a TCG guest, when things go wrong: a power cut mid-turn is that turn's "
    "boot_failed and the run goes on, --boot-abort from another shell stops the turn under way "
    "and leaves nothing to boot",
    "[vm][vm-boot-failures][e2e]") {
    REQUIRE_FALSE(test::debian_kernel_package().empty());
    BootMachine machine;
    const fs::path out = machine.out, results = out / "results";
    auto guest_log = [&] { return test::slurp(out / "guest.log"); };

    SECTION("a power cut mid-turn, then --boot-abort from another shell") {
        // The first turn's workload waits to be cut; the second's to be
        // aborted, by a shell beside the run.
        machine.workload = "sh /mnt/out/workload.sh";
        write_file(out / "workload.sh",
                   "if [ ! -e /mnt/out/cut ]; then touch /mnt/out/cut; sleep 600\n"
                   "elif [ ! -e /mnt/out/abort ]; then touch /mnt/out/abort; sleep 600; fi\n");
        write_file(
            out / "beside",
            "while [ ! -e /mnt/out/abort ]; do sleep 0.2; done\n"
            "sleep 1\n" CONTEST_BINARY
            " run --boot-status --results /mnt/out/results\n" CONTEST_BINARY
            " run --boot-abort --results /mnt/out/results\n"
            "echo \"beside: abort exit $?, kexec_loaded $(cat /sys/kernel/kexec_loaded)\"\n");
        // The labels' initramfs, removed after the cut: the later turn boots
        // contest's copy of it, made when the run started.
        const fs::path label_initramfs = machine.dir / "label-initramfs.cpio";
        fs::copy_file(machine.initramfs.path, label_initramfs);
        const std::string labels_image =
            machine.kernel.image.string() + ":" + label_initramfs.string();
        const GuestOutcome cut = [&] {
            try {
                return machine.run({"--boot", "a=" + labels_image, "--boot", "b=" + labels_image,
                                    "--boot-append", "a=contest_label=a", "--boot-append",
                                    "b=contest_label=b", "-n", "1", "--seed", "5", "no_load"},
                                   [&](double, bool) {
                                       if (fs::exists(out / "cut")) throw PowerCut{};
                                   });
            } catch (const PowerCut&) {
                return GuestOutcome{};
            }
        }();
        INFO("console: " << console_tail(machine.boot.console_log, 30)
                         << "\nguest log: " << guest_log());
        REQUIRE_FALSE(cut.finished);  // cut, not ended by itself
        BootState s = guest_boot_state(results / kRunJournalName);
        std::vector<JournalTurn> t = guest_boot_run(results / kRunJournalName).turns.list;
        REQUIRE(t.size() == 2);
        CHECK(t[0].status == TurnStatus::started);
        CHECK(s.phase == BootPhase::running);
        const std::string cut_label = s.labels.at(t[0].label).label;
        fs::remove(label_initramfs);

        const GuestOutcome o = machine.power_on();
        INFO(o.failure);
        REQUIRE(o.finished);
        CHECK(test::leftover_processes().empty());
        s = guest_boot_state(results / kRunJournalName);
        t = guest_boot_run(results / kRunJournalName).turns.list;
        REQUIRE(t.size() == 2);
        CHECK(s.phase == BootPhase::aborted);
        CHECK(t[0].status == TurnStatus::boot_failed);
        CHECK(t[1].status == TurnStatus::interrupted);
        // The boots seen: the cut turn's, the one after the power cut (the
        // default kernel), and the second turn's.
        REQUIRE(s.boots.size() == 3);
        CHECK(s.boots[1].outcome.find("rebooted during the turn's runs") != std::string::npos);
        CHECK(s.boots[1].cmdline == s.start_cmdline);
        CHECK(s.boots[2].cmdline.find("contest_label=" + s.labels.at(t[1].label).label) !=
              std::string::npos);
        std::vector<std::string> bad;
        const auto files = read_result_paths({results / cut_label}, bad);
        REQUIRE(files.size() == 1);
        REQUIRE(files[0].runs.size() == 1);
        CHECK(files[0].runs[0].status == RunStatus::boot_failed);
        CHECK(files[0].runs[0].reason.find("rebooted during the turn's runs") != std::string::npos);
        CHECK_FALSE(files[0].complete);
        // The aborted turn stopped by the abort, nothing left to boot.
        CHECK(guest_log().find("a step under way: pid") != std::string::npos);
        CHECK(guest_log().find("stopping the boot run's step under way") != std::string::npos);
        CHECK(guest_log().find("beside: abort exit 0, kexec_loaded 0") != std::string::npos);
        CHECK_FALSE(unit_on_disk(machine.disk));
        CHECK_FALSE(fs::exists(results / ".boot"));
    }
    // --boot-on-failure stop and --boot-max, the state machine's bounds, are
    // tested on the host with stand-ins (StandInMachine, above): no guest.
}

// The closing note's measured run (not in `make test`): two kernels x 3
// rounds, each boot's and each turn's times and the table it printed.
TEST_CASE("run --boot demo: two kernels x 3 rounds in a TCG guest, timed", "[.boot-demo]") {
    BootMachine machine;
    const GuestOutcome o =
        machine.run({"--boot", "a=" + machine.image, "--boot", "b=" + machine.image,
                     "--boot-append", "a=contest_label=a", "--boot-append",
                     "b=contest_label=b preempt=full", "-n", "3", "no_load"});
    REQUIRE(o.finished);
    WARN("QEMU start to power-off: " << o.total_s << " s");
    WARN(test::slurp(machine.out / "guest.log"));
    WARN(test::slurp(machine.out / "results" / kRunJournalName));
    WARN(test::shell_output("grep -a -E 'contest-guest: up|Linux version|kexec|reboot:' " +
                            machine.boot.console_log.string()));
}

TEST_CASE("run --boot: results under /tmp, which a boot empties, are refused before anything else",
          "[boot][e2e]") {
    // grub's entries (stand-ins): checked after the results folder.
    const StandInMachine machine("tmp");
    test::ScratchDir dir("boot-tmp", "/tmp");
    auto o = machine.contest(
        machine.grub_start(dir / "results", {"--workdir", (dir / "work").string()}));
    INFO(o.err);
    CHECK(o.exit_code == 3);
    CHECK(o.err.find("is under /tmp, which is emptied at boot") != std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    // A refused run makes nothing: neither its results folder nor its workdir.
    CHECK_FALSE(fs::exists(dir / "results"));
    CHECK_FALSE(fs::exists(dir / "work"));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("run --boot: a kernel image cut short, or no bzImage, is refused before anything else",
          "[boot][e2e]") {
    test::ScratchDir dir("boot-truncated", test::scratch_kept_at_boot());
    // A bzImage whose setup header says 4 KiB follow, and a copy of it cut
    // in half (its header, so its release, intact), which kexec_file_load
    // would take.
    const std::string whole = test::fake_bzimage("6.99.0-fake (t@h) #1 SMP", 4096);
    const fs::path image = dir / "vmlinuz-whole";
    write_file(image, whole);
    write_file(dir / "vmlinuz-cut", whole.substr(0, whole.size() / 2));
    write_file(dir / "not-a-kernel", "hello\n");
    for (const std::string bad : {"cut", "none"}) {
        const fs::path path = dir / (bad == "cut" ? "vmlinuz-cut" : "not-a-kernel");
        auto o = test::run_contest_binary(
            {"run", "--boot", "a=" + path.string(), "--boot", "b=" + image.string(), "-w",
             "command", "--workload-cmd", "true", "--results", (dir / "results").string(),
             "--workdir", (dir / "work").string(), "-q", "no_load"},
            dir.path(), dir.path());
        INFO(o.err);
        CHECK(o.exit_code == 2);
        CHECK(o.err.find(bad == "cut" ? "cut short" : "is no bzImage") != std::string::npos);
        CHECK_FALSE(fs::exists(dir / "results" / kRunJournalName));
        CHECK_FALSE(fs::exists(dir / "results" / ".run-journal.lock"));
    }
}

TEST_CASE(
    "run --boot: the labels' kernels (the user's words, exit 2) are checked before the "
    "results folder (the machine, exit 3), and a refused run makes nothing",
    "[boot][e2e]") {
    // Under /tmp, which the folder check refuses: the usage error comes first.
    test::ScratchDir dir("boot-order", "/tmp");
    write_file(dir / "not-a-kernel", "hello\n");
    const std::string bad = "a=" + (dir / "not-a-kernel").string();
    auto o = test::run_contest_binary(
        {"run", "--boot", bad, "--boot", "b=" + (dir / "not-a-kernel").string(), "-w", "command",
         "--workload-cmd", "true", "--results", (dir / "results").string(), "--workdir",
         (dir / "work").string(), "-q", "no_load"},
        dir.path(), dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("is no bzImage") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "results"));
    CHECK_FALSE(fs::exists(dir / "work"));
}

TEST_CASE(
    "the folders a --boot run's root trusts: refused when anyone but root could change "
    "them or one above them",
    "[boot]") {
    test::ScratchDir dir("boot-trust", test::scratch_kept_at_boot());
    CHECK_FALSE(folder_open_to_others(dir / "missing" / "below"));
    fs::create_directories(dir / "open" / "in");
    fs::permissions(dir / "open", fs::perms::all);
    CHECK(folder_open_to_others(dir / "open" / "in").value_or("").find("writable by its group") !=
          std::string::npos);
    // Sticky, as /tmp is: nobody else can swap a folder of ours below it
    // (one another user owns is refused below), but it is open itself.
    fs::permissions(dir / "open", fs::perms::all | fs::perms::sticky_bit);
    CHECK_FALSE(folder_open_to_others(dir / "open" / "in"));
    CHECK(folder_open_to_others(dir / "open").value_or("").find("writable by its group") !=
          std::string::npos);
    fs::permissions(dir / "open", fs::perms::owner_all | fs::perms::group_read |
                                      fs::perms::group_exec | fs::perms::others_read |
                                      fs::perms::others_exec);
    CHECK_FALSE(folder_open_to_others(dir / "open" / "in"));
    REQUIRE(::chown((dir / "open" / "in").c_str(), 65534, 65534) == 0);
    CHECK(folder_open_to_others(dir / "open" / "in").value_or("").find("owned by uid 65534") !=
          std::string::npos);
    fs::create_directory_symlink(dir / "open", dir / "link");
    CHECK(folder_open_to_others(dir / "link" / "x").value_or("").find("symbolic link") !=
          std::string::npos);
    CHECK(file_open_to_others(dir / "link").value_or("").find("symbolic link") !=
          std::string::npos);

    // The state's paths: contest's copy exactly the folder's, results below it.
    const fs::path folder = dir / "run";
    const BootState good = boot_state_in(folder);
    CHECK_NOTHROW(check_state_paths(good, folder, "state"));
    auto refused = [&](BootState s) {
        try {
            check_state_paths(s, folder, "state");
        } catch (const UsageError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    BootState s = good;
    s.binary = (dir / "elsewhere/contest").string();
    CHECK(refused(s).find("binary") != std::string::npos);
    s = good;
    s.labels[1].result = (folder / "../etc/x.json").string();
    CHECK(refused(s).find("labels[1]: result") != std::string::npos);
    s = good;
    s.labels[0].result = "/etc/shadow";
    CHECK(refused(s).find("labels[0]: result") != std::string::npos);
    s = good;
    s.workdir = "work";
    CHECK(refused(s).find("workdir") != std::string::npos);
}

TEST_CASE("run --boot: a results folder anyone but root could write is refused, nothing made",
          "[boot][e2e]") {
    StandInMachine machine("open-folder");
    const fs::path open = machine.dir / "open";
    for (const std::string how : {"owned by nobody", "0777", "1777"}) {
        DYNAMIC_SECTION(how) {
            fs::create_directories(open);
            if (how == "owned by nobody")
                REQUIRE(::chown(open.c_str(), 65534, 65534) == 0);
            else
                fs::permissions(open, fs::perms::all | (how == "1777" ? fs::perms::sticky_bit
                                                                      : fs::perms::none));
            // The folder itself, and a folder below the open one (below a
            // sticky one, as below /var/tmp, a folder of root's is root's).
            for (const fs::path& results : {open, open / "results"}) {
                if (how == "1777" && results != open) continue;
                auto o = machine.contest(machine.grub_start(results));
                INFO(o.err);
                CHECK(o.exit_code == 3);
                CHECK(o.err.find("refusing it, root runs contest's copy from it") !=
                      std::string::npos);
                CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
                CHECK_FALSE(fs::exists(open / kRunJournalName));
                CHECK_FALSE(fs::exists(open / "results"));
                CHECK_FALSE(fs::exists(open / ".boot"));
                CHECK_FALSE(fs::exists(boot_unit_path(machine.root)));
            }
            fs::remove_all(open);
        }
    }
}

TEST_CASE("run --boot-abort and --boot-status of a planted state: refused, nothing deleted",
          "[boot][e2e]") {
    StandInMachine machine("planted");
    // What the planted state names for removal: a file in another folder.
    const fs::path victim = machine.dir / "victim" / "file";
    write_file(victim, "keep me\n");
    for (const bool nobodys : {true, false}) {
        DYNAMIC_SECTION((nobodys ? "in a folder of nobody's" : "in root's folder")) {
            const fs::path folder = machine.dir / (nobodys ? "nobodys" : "roots");
            fs::create_directories(folder);
            BootState planted = boot_state_in(folder);
            planted.binary = victim.string();
            planted.unit_root = machine.root.string();
            // Written as the folder's owner would: its paths are not checked on write.
            write_file(folder / kRunJournalName, journal_holding(planted));
            if (nobodys) {
                REQUIRE(::chown(folder.c_str(), 65534, 65534) == 0);
                REQUIRE(::chown((folder / kRunJournalName).c_str(), 65534, 65534) == 0);
            }
            const std::string before = test::slurp(folder / kRunJournalName);
            for (const char* command : {"--boot-abort", "--boot-status"}) {
                auto o = machine.contest({"run", command, "--results", folder.string()});
                INFO(command << ": " << o.err);
                CHECK(o.exit_code == (nobodys ? 3 : 2));
                CHECK(o.err.find(nobodys ? "owned by uid 65534" : "binary") != std::string::npos);
                CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
                CHECK(test::slurp(victim) == "keep me\n");
                CHECK(test::slurp(folder / kRunJournalName) == before);
                CHECK_FALSE(fs::exists(folder / ".run-journal.lock"));
            }
        }
    }
}

TEST_CASE("run --boot-status without HOME (as the unit runs) makes nothing under /tmp",
          "[boot][e2e]") {
    StandInMachine machine("no-home");
    const fs::path results = machine.dir / "results";
    const fs::path tmp_workdir = "/tmp/contest-" + std::to_string(::geteuid());
    // Set aside while the test looks (none there now, on a machine that ran none without HOME).
    const fs::path aside = tmp_workdir.string() + ".aside-" + std::to_string(::getpid());
    std::error_code ec;
    const bool was = fs::exists(tmp_workdir, ec);
    if (was) fs::rename(tmp_workdir, aside);
    for (const char* command : {"--boot-status", "--boot-abort"}) {
        const std::string out = test::shell_output(
            "env -u HOME -u XDG_CACHE_HOME " CONTEST_BINARY " run " + std::string(command) +
            " --results '" + results.string() + "' 2>&1; echo rc=$?");
        INFO(out);
        CHECK(out.find(command == std::string("--boot-status") ? "rc=0" : "rc=2") !=
              std::string::npos);
        CHECK_FALSE(fs::exists(tmp_workdir, ec));
    }
    if (was) fs::rename(aside, tmp_workdir);
}

TEST_CASE(
    "run --boot: one run a machine, --boot-abort of a finished run leaves the live run's "
    "unit, .boot is root's alone",
    "[boot][e2e]") {
    StandInMachine machine("one-run");
    const fs::path a = machine.dir / "a", b = machine.dir / "b";
    auto started = machine.contest(machine.grub_start(a));
    INFO(started.err);
    REQUIRE(started.exit_code == 0);
    CHECK(boot_unit_state(machine.root) == a / kRunJournalName);
    CHECK(fs::status(a / ".boot").permissions() == fs::perms::owner_all);
    CHECK(fs::status(a / ".boot/contest").permissions() == fs::perms::owner_all);

    auto second = machine.contest(machine.grub_start(b));
    INFO(second.err);
    CHECK(second.exit_code == 2);
    CHECK(second.err.find("another --boot run is under way on this machine, in " + a.string()) !=
          std::string::npos);
    CHECK(std::count(second.err.begin(), second.err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(b));
    CHECK(boot_unit_state(machine.root) == a / kRunJournalName);

    // a aborted, b started: a's abort again (a finished run) leaves b's unit.
    REQUIRE(machine.contest({"run", "--boot-abort", "--results", a.string()}).exit_code == 0);
    CHECK_FALSE(fs::exists(boot_unit_path(machine.root)));
    REQUIRE(machine.contest(machine.grub_start(b)).exit_code == 0);
    auto again = machine.contest({"run", "--boot-abort", "--results", a.string()});
    INFO(again.err);
    CHECK(again.exit_code == 0);
    CHECK(again.err.find("aborted already") != std::string::npos);
    CHECK(boot_unit_state(machine.root) == b / kRunJournalName);
    CHECK(fs::exists(b / ".boot/contest"));
    auto status = machine.contest({"run", "--boot-status", "--results", a.string()});
    CHECK(status.out.find("the machine's unit is another run's (" +
                          (b / kRunJournalName).string()) != std::string::npos);
    REQUIRE(machine.contest({"run", "--boot-abort", "--results", b.string()}).exit_code == 0);
    CHECK_FALSE(fs::exists(boot_unit_path(machine.root)));
    CHECK_FALSE(fs::exists(b / ".run-journal.lock"));
}

TEST_CASE("run --boot-abort removes the run's unit when its state cannot be read, or is gone",
          "[boot][e2e]") {
    StandInMachine machine("unreadable");
    const fs::path results = machine.dir / "results";
    for (const bool gone : {false, true}) {
        DYNAMIC_SECTION((gone ? "the state gone" : "the state cut short")) {
            REQUIRE(machine.contest(machine.grub_start(results)).exit_code == 0);
            REQUIRE(fs::exists(boot_unit_path(machine.root)));
            if (gone)
                fs::remove(results / kRunJournalName);
            else
                write_file(results / kRunJournalName, "{\"schema\": 1");
            // Without --boot-root, the machine's own unit is looked at: not this one.
            auto elsewhere =
                machine.contest({"run", "--boot-abort", "--results", results.string()});
            CHECK(elsewhere.exit_code == (gone ? 2 : 2));
            CHECK(fs::exists(boot_unit_path(machine.root)));
            auto o = machine.contest({"run", "--boot-abort", "--results", results.string(),
                                      "--boot-root", machine.root.string()});
            INFO(o.err);
            CHECK(o.exit_code == (gone ? 0 : 3));
            CHECK(o.err.find("contest's unit, which named") != std::string::npos);
            CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
            CHECK_FALSE(fs::exists(boot_unit_path(machine.root)));
            fs::remove_all(results);
        }
    }
}

TEST_CASE(
    "run --boot records the workdir it parsed: an abbreviated --workd= is each step's too, "
    "recorded whole",
    "[boot][e2e]") {
    StandInMachine machine("workd");
    const fs::path results = machine.dir / "results", work = machine.dir / "work two";
    auto o = machine.contest(machine.grub_start(results, {"--workd=" + work.string()}));
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    const BootState s = read_boot_state(results / kRunJournalName);
    const std::vector<JournalTurn> t = read_boot_run(results / kRunJournalName).turns.list;
    REQUIRE_FALSE(t.empty());
    CHECK(s.workdir == work.string());
    // The run's config as the start resolved it, in its journal: the
    // workdir whole, the words each option by its whole name.
    const RunJournal journal = read_run_journal(results / kRunJournalName);
    CHECK(journal.config.workload.workdir == work);
    const auto& words = journal.config.command_line;
    CHECK(std::find(words.begin(), words.end(), "--workdir=" + work.string()) != words.end());
    CHECK(std::none_of(words.begin(), words.end(),
                       [](const std::string& w) { return w.starts_with("--workd="); }));
    // The unit waits for the results folder's mount and the workdir's; the
    // folder the run was started in is no step's.
    const std::string unit = test::slurp(boot_unit_path(machine.root));
    CHECK(unit.find("RequiresMountsFor=\"" + results.string() + "\" \"" + work.string() + "\"\n") !=
          std::string::npos);
    // The next step (its boot another kernel than the entry: boot_failed)
    // records its turn in the label's file, with that workdir.
    auto step = machine.next_step(results);
    INFO(step.err);
    CHECK(step.exit_code == 0);
    std::vector<std::string> bad;
    const auto files = read_result_paths({results / s.labels.at(t[0].label).label}, bad);
    REQUIRE(files.size() == 1);
    CHECK(files[0].config["workdir"] == work.string());
    CHECK(machine.contest({"run", "--boot-abort", "--results", results.string()}).exit_code == 0);
}

TEST_CASE("run --boot: places every later step needs are checked before the first reboot",
          "[boot][e2e]") {
    StandInMachine machine("places");
    const fs::path results = machine.dir / "results";
    auto refused = [&](const std::string& shell_before, const std::vector<std::string>& more,
                       const fs::path& into = {}, const fs::path& unit_root = {}) {
        std::string line =
            (shell_before.empty() ? "cd '" + machine.dir.path().string() + "' &&" : shell_before) +
            " " CONTEST_BINARY;
        for (const auto& w : machine.grub_start(into.empty() ? results : into, more, unit_root))
            line += " '" + w + "'";
        const std::string out = test::shell_output(line + " 2>&1; echo rc=$?");
        CHECK_FALSE(fs::exists(results));
        CHECK_FALSE(fs::exists(boot_unit_path(machine.root)));
        return out;
    };
    test::ScratchDir tmp("boot-places", "/tmp");
    SECTION("the current folder under /tmp is no refusal: no step reads in it") {
        const std::string out =
            test::shell_output("cd '" + tmp.path().string() + "' && " CONTEST_BINARY " " + [&] {
                std::string words;
                for (const auto& w : machine.grub_start(results)) words += " '" + w + "'";
                return words;
            }() + " 2>&1; echo rc=$?");
        INFO(out);
        CHECK(out.find("rc=0") != std::string::npos);
        // Nothing in the journal names that folder: every path is absolute.
        const RunJournal journal = read_run_journal(results / kRunJournalName);
        CHECK(journal.config.results_dir == results);
        CHECK(run_journal_text(journal).find(tmp.path().string()) == std::string::npos);
        CHECK(machine
                  .contest({"run", "--boot-abort", "--results", results.string(), "--boot-root",
                            machine.root.string()})
                  .exit_code == 0);
        fs::remove_all(results);
    }
    SECTION("the workdir under /tmp") {
        const std::string out = refused("", {"--workdir", (tmp / "work").string()});
        CHECK(out.find("the workdir " + (tmp / "work").string() + " is under /tmp") !=
              std::string::npos);
        CHECK(out.find("rc=3") != std::string::npos);
        CHECK_FALSE(fs::exists(tmp / "work"));
    }
    SECTION("a path the unit cannot name") {
        const fs::path odd = machine.dir / "new\nline";
        const std::string out = refused("", {"--workdir", odd.string()});
        CHECK(out.find("holds a control character") != std::string::npos);
        CHECK(out.find("rc=2") != std::string::npos);
    }
    SECTION("results on a noexec mount") {
        const fs::path mount = machine.dir / "noexec";
        fs::create_directories(mount);
        if (std::system(("mount --bind '" + mount.string() + "' '" + mount.string() +
                         "' && mount -o remount,bind,noexec '" + mount.string() + "'")
                            .c_str()) != 0)
            CONTEST_SKIP("cannot mount here (no CAP_SYS_ADMIN)");
        const std::string out = refused("", {}, mount / "results");
        (void)!std::system(("umount '" + mount.string() + "'").c_str());
        CHECK(out.find("is on a noexec mount") != std::string::npos);
        CHECK(out.find("rc=3") != std::string::npos);
        CHECK_FALSE(fs::exists(mount / "results"));
    }
    SECTION("the machine's own root without systemd") {
        if (fs::exists("/run/systemd/system"))
            CONTEST_SKIP("systemd runs here: the check passes, and the start would go on");
        const std::string out = refused("", {}, {}, "/");
        CHECK(out.find("systemd is not running as PID 1 here") != std::string::npos);
        CHECK(out.find("rc=3") != std::string::npos);
        CHECK_FALSE(fs::exists(boot_unit_path("/")));
    }
}

TEST_CASE("copies into .boot never follow a link planted in their place", "[boot]") {
    test::ScratchDir dir("boot-copy", test::scratch_kept_at_boot());
    write_file(dir / "victim", "keep me\n");
    write_file(dir / "kernel", "a kernel\n");
    fs::create_directories(dir / "results");
    const UniqueFd copies = open_copy_folder(dir / "results");
    CHECK(fs::status(dir / "results/.boot").permissions() == fs::perms::owner_all);
    fs::create_symlink(dir / "victim", dir / "results/.boot/0-vmlinuz");
    copy_into(copies, "0-vmlinuz", dir / "kernel", dir / "results/.boot/0-vmlinuz", 0600);
    CHECK(test::slurp(dir / "victim") == "keep me\n");
    CHECK_FALSE(fs::is_symlink(dir / "results/.boot/0-vmlinuz"));
    CHECK(test::slurp(dir / "results/.boot/0-vmlinuz") == "a kernel\n");
    // A .boot of another user's is refused, not made root's.
    fs::remove_all(dir / "results/.boot");
    fs::create_directories(dir / "results/.boot");
    REQUIRE(::chown((dir / "results/.boot").c_str(), 65534, 65534) == 0);
    CHECK_THROWS_AS(open_copy_folder(dir / "results"), EnvironmentError);
}

TEST_CASE(
    "run --boot's built releases are removed when the run ends, only those contest made, "
    "a planted release name is refused",
    "[boot][e2e]") {
    StandInMachine machine("built");
    const fs::path results = machine.dir / "results";
    REQUIRE(machine.contest(machine.grub_start(results)).exit_code == 0);
    // As a start of TREE@REF kernels leaves them: one release contest built
    // (its mark), and one named in the state that contest did not make.
    const fs::path modules = machine.root / "lib/modules";
    write_file(modules / "6.1.0-contest-aaaa1111" / kbuild::kContestMadeMark, "key\n");
    write_file(modules / "6.1.0-theirs" / "modules.dep", "");
    BootState s = read_boot_state(results / kRunJournalName);
    s.labels.at(0).built_release = "6.1.0-contest-aaaa1111";
    s.labels.at(0).build = R"({"commit": "abc", "release": "6.1.0-contest-aaaa1111"})";
    s.labels.at(1).built_release = "6.1.0-theirs";
    SECTION("the run aborted: contest's release removed, the other left") {
        write_boot_state(results / kRunJournalName, s);
        const auto o = machine.contest({"run", "--boot-abort", "--results", results.string(),
                                        "--boot-root", machine.root.string()});
        INFO(o.err);
        CHECK(o.exit_code == 0);
        CHECK_FALSE(fs::exists(modules / "6.1.0-contest-aaaa1111"));
        CHECK(fs::exists(modules / "6.1.0-theirs"));
        CHECK(o.err.find("removed the release contest built for " + s.labels[0].label +
                         " (lib/modules/6.1.0-contest-aaaa1111)") != std::string::npos);
    }
    SECTION("--boot-keep-built: left installed") {
        s.keep_built = true;
        write_boot_state(results / kRunJournalName, s);
        const auto o = machine.contest({"run", "--boot-abort", "--results", results.string(),
                                        "--boot-root", machine.root.string()});
        CHECK(o.exit_code == 0);
        CHECK(fs::exists(modules / "6.1.0-contest-aaaa1111"));
    }
    SECTION("a release naming a folder above lib/modules: the state refused, nothing removed") {
        s.labels.at(0).built_release = "../../etc";
        write_boot_state(results / kRunJournalName, s);
        const auto o = machine.contest({"run", "--boot-status", "--results", results.string()});
        CHECK(o.exit_code == 2);
        CHECK(o.err.find("labels[0]: built_release: not a release name") != std::string::npos);
        CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
        CHECK(fs::exists(modules / "6.1.0-contest-aaaa1111"));
        machine.contest({"run", "--boot-abort", "--results", results.string(), "--boot-root",
                         machine.root.string()});
    }
    CHECK(test::leftover_processes().empty());
}
