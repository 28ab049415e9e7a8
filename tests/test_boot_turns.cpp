// `contest run --boot`, turn by turn, without a machine that reboots: the
// boot loaders' tools are stand-ins on PATH that record what they are asked
// (grub-reboot, bootctl, reboot, systemctl), the boot loader's files are a
// scratch --boot-root's, and the kernel each step finds itself in is made up
// (CONTEST_TEST_RUNNING_KERNEL names stand-ins for /proc's files), so that a
// test says "the machine came back in kernel X" and runs the step the unit
// would run. What each defect of a run's turns looked like is a test here.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "contest/boot/boot_entry.h"
#include "contest/boot/boot_kernel.h"
#include "contest/boot/boot_state.h"
#include "contest/boot/boot_unit.h"
#include "contest/result/result_file.h"
#include "contest/run/record/result_writer.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/text.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

const std::string kStd = "6.1.0-57-amd64", kRt = "6.1.0-57-rt-amd64";
const std::string kStdArgs = "root=UUID=1 ro quiet", kRtArgs = "root=UUID=1 ro quiet threadirqs";

// Debian's grub.cfg, cut down: its default entry, then the advanced submenu
// with an entry per kernel; quoted strings elsewhere that are no entry.
const std::string kGrubCfg = R"cfg(set default="0"
set menu_color_normal='Not an entry'
function load_video {
  insmod all_video
}
menuentry 'Debian GNU/Linux' --class debian --class os $menuentry_id_option 'gnulinux-simple-1' {
	load_video
	echo	'Loading Linux 6.1.0-57-amd64 ...'
	linux	/boot/vmlinuz-6.1.0-57-amd64 root=UUID=1 ro  quiet
	initrd	/boot/initrd.img-6.1.0-57-amd64
}
submenu 'Advanced options for Debian GNU/Linux' $menuentry_id_option 'gnulinux-advanced-1' {
	menuentry 'Debian GNU/Linux, with Linux 6.1.0-57-rt-amd64' --class debian $menuentry_id_option 'gnulinux-6.1.0-57-rt-amd64-advanced-1' {
		linux	/boot/vmlinuz-6.1.0-57-rt-amd64 root=UUID=1 ro  quiet threadirqs
	}
	menuentry "Debian GNU/Linux, with Linux 6.1.0-57-amd64 (\"recovery\")" --id=recovery {
		linux	/boot/vmlinuz-6.1.0-57-amd64 root=UUID=1 ro single $extra
	}
}
menuentry 'UEFI Firmware Settings' $menuentry_id_option 'uefi-firmware' {
	fwsetup
}
)cfg";

const std::string kRtEntry =
    "Advanced options for Debian GNU/Linux>gnulinux-6.1.0-57-rt-amd64-advanced-1";

// A scratch machine for --boot's steps: stand-in tools, a boot root with
// grub's and systemd-boot's files, and the kernel a step finds itself in.
struct BootBench {
    test::ScratchDir dir;
    fs::path root, bin, proc, asked, results, work;
    std::string method = "grub";
    std::string saved_path;
    int boots = 0;

    explicit BootBench(const std::string& tag)
        : dir("boot-turns-" + tag, test::scratch_kept_at_boot()) {
        root = dir / "root";
        bin = dir / "bin";
        proc = dir / "proc";
        asked = dir / "asked";
        results = dir / "results";
        work = dir / "work";
        // Each records its call; the first call of grub-reboot or bootctl
        // after `hold` is made holds on (to be interrupted; the call that
        // clears the one-shot after it does not), and they fail in a kernel
        // named in `refuse-in` (one that cannot boot the next).
        const std::string arm_tool =
            "echo \"$(basename \"$0\") $*\" >> '" + asked.string() + "'\n" + "if [ -e '" +
            (dir / "hold").string() + "' ]; then rm '" + (dir / "hold").string() + "'; touch '" +
            (dir / "holding").string() + "'; sleep 60; fi\n" + "if [ -e '" +
            (dir / "refuse-in").string() + "' ] && [ \"$(cat '" + (proc / "osrelease").string() +
            "')\" = \"$(cat '" + (dir / "refuse-in").string() +
            "')\" ]; then echo 'cannot here' >&2; exit 1; fi\n";
        for (const char* tool : {"grub-reboot", "bootctl"})
            test::put_file(bin / tool, "#!/bin/sh\n" + arm_tool, true);
        test::put_recording_tools(bin, {"grub-editenv", "reboot", "systemctl"}, asked);
        test::put_file(root / "boot/grub/grub.cfg", kGrubCfg);
        test::put_file(root / "boot/loader/entries/std.conf", "title Debian\nversion " + kStd +
                                                                  "\nlinux /vmlinuz-" + kStd +
                                                                  "\noptions " + kStdArgs + "\n");
        test::put_file(
            root / "boot/loader/entries/rt.conf",
            "title Debian rt\n# kernel-install's layout: the release is the entry's version\n"
            "version " +
                kRt + "\nlinux /" + kRt + "/linux\ninitrd /" + kRt +
                "/initrd\noptions root=UUID=1 ro\n" + "options quiet threadirqs\n");
        const char* path = std::getenv("PATH");
        saved_path = path ? path : "/usr/bin:/bin";
        ::setenv("PATH", (bin.string() + ":" + saved_path).c_str(), 1);
        ::setenv(kTestRunningKernelVariable, proc.c_str(), 1);
        boot_in(kStd, kStdArgs);
    }
    ~BootBench() {
        ::setenv("PATH", saved_path.c_str(), 1);
        ::unsetenv(kTestRunningKernelVariable);
    }

    // The machine (made) up in a kernel: a new boot, with the words its
    // loader adds to the command line.
    void boot_in(const std::string& release, const std::string& args) {
        const std::string loader =
            method == "grub" ? "BOOT_IMAGE=/boot/vmlinuz-" + release + " " : "";
        test::put_file(proc / "osrelease", release + "\n");
        test::put_file(proc / "cmdline",
                       loader + args + (method == "grub" ? "" : " initrd=\\" + release) + "\n");
        test::put_file(proc / "boot_id", "boot-" + std::to_string(++boots) + "\n");
        test::put_file(proc / "uptime", "12.5 10.0\n");
    }
    void boot_in_label(const BootState& s, std::size_t turn) {
        const bool rt = s.labels.at(turns().list.at(turn).label).label == "rt";
        boot_in(rt ? kRt : kStd, rt ? kRtArgs : kStdArgs);
    }

    std::string entry(const std::string& label) const {
        if (method == "grub") return label == "rt" ? kRtEntry : "gnulinux-simple-1";
        return label;
    }
    std::vector<std::string> run_args(const std::vector<std::string>& more) const {
        std::vector<std::string> a = {"run",
                                      "--boot",
                                      "rt=" + entry("rt"),
                                      "--boot",
                                      "std=" + entry("std"),
                                      "--boot-method",
                                      method,
                                      "--boot-root",
                                      root.string(),
                                      "--results",
                                      results.string(),
                                      "--seed",
                                      "3"};
        for (auto& w : test::quick_run_words(work)) a.push_back(std::move(w));
        a.insert(a.end(), more.begin(), more.end());
        return a;
    }
    test::Outcome start(const std::vector<std::string>& more) {
        return test::run_contest_binary(run_args(more), dir.path(), dir.path());
    }
    test::Outcome step() {
        return test::run_contest_binary({"run", "--boot-continue", state_path().string()},
                                        dir.path(), dir.path());
    }
    fs::path state_path() const { return results / kRunJournalName; }
    BootState state() const { return read_boot_state(state_path()); }
    // The run's turns, the journal's (beside the state, not in it).
    JournalTurns turns() const { return read_boot_run(state_path()).turns; }
    std::string said() const { return test::slurp(asked); }
    // The reboots asked of the stand-ins (systemctl's, under systemd).
    std::size_t reboots() const {
        std::size_t n = 0;
        for (const auto& line : split_lines(said()))
            n += line == "reboot " || line.starts_with("systemctl --no-block reboot");
        return n;
    }
    ResultFile file_of(const std::string& label) const {
        std::vector<std::string> bad;
        const auto files = read_result_paths({results / label}, bad);
        REQUIRE(files.size() == 1);
        return files.front();
    }
};

// The first calibration anywhere in a run's latency record.
const nlohmann::json* calibration_in(const nlohmann::json& j) {
    if (j.is_object()) {
        if (j.contains("calibration") && j["calibration"].is_object()) return &j["calibration"];
        for (const auto& [key, value] : j.items())
            if (auto found = calibration_in(value)) return found;
    } else if (j.is_array()) {
        for (const auto& value : j)
            if (auto found = calibration_in(value)) return found;
    }
    return nullptr;
}

}  // namespace

TEST_CASE(
    "grub.cfg's menu: entries by title, id, index and submenu path, its linux line, quoted "
    "strings elsewhere are no entry",
    "[boot]") {
    const std::vector<GrubMenuEntry> menu = grub_menu(kGrubCfg);
    REQUIRE(menu.size() == 4);
    CHECK(menu[0].path.size() == 1);
    CHECK(menu[0].path[0].title == "Debian GNU/Linux");
    CHECK(menu[0].path[0].id == "gnulinux-simple-1");
    CHECK(menu[0].linux_image == "/boot/vmlinuz-6.1.0-57-amd64");
    CHECK(join(menu[0].linux_args, " ") == kStdArgs);
    REQUIRE(menu[1].path.size() == 2);
    CHECK(menu[1].path[0].index == 1);
    CHECK(menu[1].path[1].index == 0);
    CHECK(menu[2].path[1].title == "Debian GNU/Linux, with Linux 6.1.0-57-amd64 (\"recovery\")");
    CHECK(menu[2].path[1].id == "recovery");
    CHECK(menu[2].args_expand);
    CHECK(menu[3].path[0].index == 2);
    CHECK(menu[3].linux_image.empty());

    CHECK(grub_entry_named(menu[0], "Debian GNU/Linux"));
    CHECK(grub_entry_named(menu[0], "0"));
    CHECK(grub_entry_named(menu[1], kRtEntry));
    CHECK(grub_entry_named(menu[1], "1>0"));
    CHECK(grub_entry_named(menu[1], "gnulinux-advanced-1>Debian GNU/Linux, with Linux " + kRt));
    CHECK_FALSE(grub_entry_named(menu[1], "Debian GNU/Linux, with Linux " + kRt));
    CHECK_FALSE(grub_entry_named(menu[1], "Advanced options for Debian GNU/Linux"));

    test::ScratchDir dir("grub-menu");
    test::put_file(dir / "boot/grub/grub.cfg", kGrubCfg);
    const EntryLookup rt = grub_entry_kernel(dir.path().string(), kRtEntry);
    REQUIRE(rt.kernel);
    CHECK(rt.kernel->release == kRt);  // from the image's name: no image under the root
    CHECK(rt.kernel->cmdline == kRtArgs);
    // A line with a grub variable cannot be known before the boot.
    const EntryLookup recovery = grub_entry_kernel(dir.path().string(), "1>recovery");
    REQUIRE(recovery.kernel);
    CHECK(recovery.kernel->cmdline.empty());
    // Quoted, but no entry: the old check found any quoted string in the file.
    for (const std::string none :
         {"Not an entry", "Loading Linux 6.1.0-57-amd64 ...", "load_video"})
        CHECK_FALSE(grub_entry_kernel(dir.path().string(), none).kernel);
    CHECK(grub_entry_kernel(dir.path().string(), "uefi-firmware").why.find("no linux line") !=
          std::string::npos);
    CHECK(grub_entry_kernel(dir.path().string(), "Debian GNU/Linux, with Linux " + kRt)
              .why.find("give 'Advanced options for Debian GNU/Linux>") != std::string::npos);
}

TEST_CASE(
    "run --boot --boot-method grub / systemd-boot: each boot is checked against its entry's own "
    "kernel (release, command line), not only against the start kernel, the way back says where "
    "it came back",
    "[boot][e2e]") {
    for (const std::string method : {"grub", "systemd-boot"}) {
        DYNAMIC_SECTION(method) {
            BootBench b("entry-" + method);
            b.method = method;
            // An entry quoted in grub.cfg but no menuentry is refused.
            if (method == "grub") {
                auto bad = test::run_contest_binary(
                    {"run", "--boot", "x=Not an entry", "--boot", "y=gnulinux-simple-1",
                     "--boot-method", "grub", "--boot-root", b.root.string(), "--results",
                     (b.dir / "r2").string(), "-w", "command", "--workload-cmd", "true",
                     "--workdir", b.work.string(), "-q", "no_load"},
                    b.dir.path(), b.dir.path());
                CHECK(bad.exit_code == 3);
                CHECK(bad.err.find("no grub entry 'Not an entry'") != std::string::npos);
            }
            // Started in a kernel that is not the default entry's.
            b.boot_in("6.1.0-99-custom", "root=UUID=1 ro custom");
            auto o = b.start({"-n", "1", "no_load"});
            INFO(o.err);
            REQUIRE(o.exit_code == 0);
            BootState s = b.state();
            REQUIRE(b.turns().list.size() == 2);
            for (const auto& label : s.labels) {
                CHECK(label.release == (label.label == "rt" ? kRt : kStd));
                CHECK(label.cmdline == (label.label == "rt" ? kRtArgs : kStdArgs));
            }
            // Each turn the machine comes back in the default entry's kernel:
            // std's turn is measured, rt's failed (it did not come up).
            for (std::size_t turn = 0; turn < 2; ++turn) {
                b.boot_in(kStd, kStdArgs);
                auto step = b.step();
                INFO(step.err);
                CHECK(step.exit_code == 0);
                s = b.state();
                const std::string label = s.labels.at(b.turns().list[turn].label).label;
                if (label == "rt") {
                    CHECK(b.turns().list[turn].status == TurnStatus::boot_failed);
                    CHECK(s.boots.back().outcome.find("booted " + kStd) != std::string::npos);
                    CHECK(s.boots.back().outcome.find("not rt's " + kRt) != std::string::npos);
                } else {
                    CHECK(b.turns().list[turn].status == TurnStatus::done);
                    CHECK(s.boots.back().outcome == "measured");
                }
            }
            // The way back: the default entry, said to be another kernel.
            CHECK(s.phase == BootPhase::returning);
            b.boot_in(kStd, kStdArgs);
            auto back = b.step();
            INFO(back.err);
            s = b.state();
            CHECK(s.phase == BootPhase::done);
            CHECK(s.boots.back().outcome.starts_with("back in " + kStd));
            CHECK(s.boots.back().outcome.find(
                      "not the kernel the run started in (6.1.0-99-custom)") != std::string::npos);
            CHECK(s.note.find("the machine's default") != std::string::npos);
            CHECK(b.file_of("std").runs.at(0).ok());
            CHECK(b.file_of("rt").runs.at(0).status == RunStatus::boot_failed);

            // The entry of the kernel the run starts in is a label like any
            // other: measured when it comes up, a wrong command line is not it.
            fs::remove_all(b.results);
            b.boot_in(kStd, kStdArgs);
            o = b.start({"-n", "1", "no_load"});
            REQUIRE(o.exit_code == 0);
            s = b.state();
            for (std::size_t turn = 0; turn < 2; ++turn) {
                const bool rt = s.labels.at(b.turns().list[turn].label).label == "rt";
                // rt comes up with another command line than its entry's.
                b.boot_in(rt ? kRt : kStd, rt ? "root=UUID=1 ro quiet" : kStdArgs);
                auto step = b.step();
                INFO(step.err);
                s = b.state();
                CHECK(b.turns().list[turn].status ==
                      (rt ? TurnStatus::boot_failed : TurnStatus::done));
            }
            CHECK(test::leftover_processes().empty());
        }
    }
}

TEST_CASE(
    "run --boot: a start interrupted (SIGINT, SIGTERM, SIGHUP) while the first kernel is armed "
    "leaves nothing armed: no unit, one-shot entry cleared, no copies, the state aborted",
    "[boot][e2e]") {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
        for (const std::string method : {"grub", "systemd-boot"}) {
            DYNAMIC_SECTION(method << " " << sig) {
                BootBench b("interrupt-" + method + "-" + std::to_string(sig));
                b.method = method;
                test::put_file(b.dir / "hold", "");
                const pid_t pid = test::start_contest(b.run_args({"-n", "1", "no_load"}),
                                                      b.dir.path(), b.dir.path());
                for (int i = 0; i < 1000 && !fs::exists(b.dir / "holding"); ++i)
                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
                REQUIRE(fs::exists(b.dir / "holding"));
                // Armed as far as contest knows: unit, state, copies; the
                // step's lock named after the journal, held by the start.
                CHECK(fs::exists(boot_unit_path(b.root)));
                CHECK(FileLock::held_by(b.results / ".run-journal.lock") == pid);
                ::kill(pid, sig);
                const auto o = test::finish_contest(pid, b.dir.path());
                INFO(o.err);
                CHECK(o.exit_code == 130);
                CHECK_FALSE(fs::exists(boot_unit_path(b.root)));
                CHECK_FALSE(fs::exists(b.results / ".boot"));
                CHECK_FALSE(fs::exists(b.results / ".run-journal.lock"));
                const BootState s = b.state();
                CHECK(s.phase == BootPhase::aborted);
                CHECK(s.note.find("interrupted before the first reboot") != std::string::npos);
                const std::string said = b.said();
                CHECK(said.find(method == "grub" ? "grub-editenv - unset next_entry"
                                                 : "bootctl set-oneshot \n") != std::string::npos);
                CHECK(b.reboots() == 0);
                CHECK(test::leftover_processes().empty());
                // A new run may start in the folder.
                auto again = b.start({"-n", "1", "no_load"});
                INFO(again.err);
                CHECK(again.exit_code == 0);
                CHECK(b.state().phase == BootPhase::running);
            }
        }
    }
}

TEST_CASE(
    "run --boot: a kernel that cannot boot the next is blamed itself, once, the machine goes back "
    "through the firmware and its own kernel boots the next turn, and every turn is taken",
    "[boot][e2e]") {
    BootBench b("detour");
    // rt's kernel cannot arm the next one (as one without kexec cannot load it).
    test::put_file(b.dir / "refuse-in", kRt);
    auto o = b.start({"-n", "2", "no_load"});
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    BootState s = b.state();
    REQUIRE(b.turns().list.size() == 4);
    CHECK(s.boot_max == 8);
    std::size_t detours = 0;
    for (int steps = 0; steps < 12 && !s.finished(); ++steps) {
        if (s.phase == BootPhase::detour || s.phase == BootPhase::returning)
            b.boot_in(kStd, kStdArgs);  // through the firmware: the default entry
        else
            b.boot_in_label(s, b.turns().next);
        const BootPhase phase = s.phase;
        auto step = b.step();
        INFO(step.err);
        CHECK(step.exit_code == 0);
        s = b.state();
        if (phase == BootPhase::detour) {
            ++detours;
            CHECK(s.boots.back().outcome == "through the firmware, for the next turn");
        }
    }
    CHECK(s.phase == BootPhase::done);
    for (const auto& turn : b.turns().list) CHECK(turn.status == TurnStatus::done);
    // Every rt turn but a last one is followed by a detour.
    const bool rt_last = s.labels.at(b.turns().list.back().label).label == "rt";
    CHECK(detours == (rt_last ? 1u : 2u));
    CHECK(s.boots_asked <= s.boot_max);
    for (const auto& label : s.labels)
        CHECK(label.cannot_boot_next.empty() == (label.label == "std"));
    const ResultFile rt = b.file_of("rt"), std_file = b.file_of("std");
    CHECK(rt.complete);
    REQUIRE(rt.config["boot"].contains("cannot_boot_next"));
    CHECK(rt.config["boot"]["cannot_boot_next"].get<std::string>().find("cannot boot std's") !=
          std::string::npos);
    CHECK_FALSE(std_file.config["boot"].contains("cannot_boot_next"));
    for (const auto& file : {rt, std_file}) {
        REQUIRE(file.runs.size() == 2);
        for (const auto& r : file.runs) CHECK(r.ok());
    }
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "run --boot: a state whose turns are all taken but not yet returning (a power cut before the "
    "way back was asked) ends the run, never reading past the last turn",
    "[boot][e2e]") {
    BootBench b("past-end");
    auto o = b.start({"-n", "1", "no_load"});
    REQUIRE(o.exit_code == 0);
    BootState s = b.state();
    JournalTurns taken = b.turns();
    for (auto& turn : taken.list) turn.status = TurnStatus::done;
    taken.next = taken.list.size();
    write_boot_run(b.state_path(), s, taken);
    // Back in a label's kernel: the way back is asked for.
    const std::size_t reboots = b.reboots();
    b.boot_in(kRt, kRtArgs);
    auto step = b.step();
    INFO(step.err);
    CHECK(step.exit_code == 0);
    s = b.state();
    CHECK(s.phase == BootPhase::returning);
    CHECK(s.boots.back().outcome.starts_with("no turn left"));
    CHECK(b.reboots() == reboots + 1);
    // And in the start kernel it ends there.
    s.phase = BootPhase::running;
    write_boot_state(b.state_path(), s);
    b.boot_in(kStd, kStdArgs);
    step = b.step();
    INFO(step.err);
    CHECK(step.exit_code == 0);
    CHECK(b.state().phase == BootPhase::done);
    CHECK_FALSE(fs::exists(boot_unit_path(b.root)));
}

TEST_CASE(
    "run --boot: each turn starts by removing what a contest killed hard left (load folders, "
    "half-written result files) and reuses its label's calibration of the probes",
    "[boot][e2e]") {
    BootBench b("turn-start");
    auto o = b.start({"-n", "2", "--latency=audio", "no_load"});
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    BootState s = b.state();
    // The first turn: its label's file and calibration made.
    b.boot_in_label(s, 0);
    auto step = b.step();
    INFO(step.err);
    REQUIRE(b.turns().list[0].status == TurnStatus::done);
    const std::string first = s.labels.at(b.turns().list[0].label).label;
    // What a turn cut by a power cut leaves: a load's folder, a file half-written.
    const std::string gone = std::to_string(test::a_gone_pid());
    test::put_file(b.work / "loads" / ("cpu_load." + gone) / "data", "x");
    const fs::path half = b.results / first / ("x.json.tmp." + gone);
    test::put_file(half, "{");
    // The file's calibration, set apart from any this machine would measure.
    ResultFile file = b.file_of(first);
    REQUIRE(file.config["latency"].contains("calibration"));
    file.config["latency"]["calibration"]["ns_per_chunk"] = 7777.25;
    ResultWriter(b.state().labels.at(b.turns().list[0].label).result).save(file);
    // The next turn, whichever label's, removes them; the first label's next
    // turn uses the calibration.
    std::size_t next = 1;
    std::string said_since;
    while (s.labels.at(b.turns().list[next].label).label != first) {
        b.boot_in_label(s, next);
        step = b.step();
        INFO(step.err);
        said_since += step.err;
        ++next;
    }
    b.boot_in_label(s, next);
    step = b.step();
    INFO(step.err);
    said_since += step.err;
    CHECK(step.exit_code == 0);
    CHECK(b.turns().list[next].status == TurnStatus::done);
    CHECK_FALSE(fs::exists(b.work / "loads" / ("cpu_load." + gone)));
    CHECK_FALSE(fs::exists(half));
    CHECK(said_since.find("removed what a killed contest left") != std::string::npos);
    file = b.file_of(first);
    REQUIRE(file.runs.size() == 2);
    const nlohmann::json* used = calibration_in(file.runs[1].latency);
    REQUIRE(used);
    CHECK((*used)["ns_per_chunk"].get<double>() == 7777.25);
    CHECK(file.config["latency"]["calibration"]["ns_per_chunk"].get<double>() == 7777.25);
    CHECK(test::leftover_processes().empty());
}

namespace {

// Runs a shell command as nobody (uid 65534), as a user of the machine would
// change their own files; REQUIREs that it ran. Its PATH is the system's
// folders: the test's own (the dependency-path folder in the build tree)
// may lie below a folder only root can enter (a clone in a mktemp -d).
void as_nobody(const std::string& command) {
    const std::string out =
        test::shell_output("setpriv --reuid=65534 --regid=65534 --clear-groups env " +
                           test::kSystemPath + " sh -c '" + command + "' 2>&1; echo rc=$?");
    INFO(out);
    REQUIRE(out.ends_with("rc=0"));
}

}  // namespace

TEST_CASE(
    "run --boot: root reads nothing of a user's after the start: the --config file, the folder "
    "the run was started in and a workdir it names, changed by their owner between two boots, "
    "are not read again (the words are resolved once, at the start, into root's state)",
    "[boot][e2e]") {
    BootBench b("resolved");
    // A user's home (nobody's), the run started in a folder of it with a
    // --config file of theirs, named relatively. In /tmp, not beside the
    // bench: nobody must reach it, and a checkout's scratch may sit below
    // a folder only root can enter.
    const test::ScratchDir user_dir("boot-turns-home", "/tmp");
    const fs::path home = user_dir / "home", start = home / "start", marks = b.dir / "marks";
    fs::create_directories(start);
    fs::create_directories(marks);
    test::put_file(start / "c.ini", "workload-cmd = touch " + (marks / "first").string() +
                                        "\nworkdir = " + b.work.string() + "\n");
    for (const fs::path& p : {home, start, start / "c.ini"})
        REQUIRE(::chown(p.c_str(), 65534, 65534) == 0);
    const auto o = test::run_contest_binary({"run",
                                             "--boot",
                                             "rt=" + b.entry("rt"),
                                             "--boot",
                                             "std=" + b.entry("std"),
                                             "--boot-method",
                                             b.method,
                                             "--boot-root",
                                             b.root.string(),
                                             "--results",
                                             b.results.string(),
                                             "--seed",
                                             "3",
                                             "-w",
                                             "command",
                                             "--warmup",
                                             "0",
                                             "--timeline-hz",
                                             "0",
                                             "-q",
                                             "--config",
                                             "c.ini",
                                             "-n",
                                             "1",
                                             "no_load"},
                                            b.dir.path(), start);
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    BootState s = b.state();
    // The journal's config: the file's values merged, no --config left to
    // read (its words recorded so, each option by its whole name).
    const RunJournal journal = read_run_journal(b.results / kRunJournalName);
    CHECK(journal.config.workload.workload_cmd == "touch " + (marks / "first").string());
    CHECK(journal.config.workload.workdir == b.work);
    const auto& words = journal.config.command_line;
    CHECK(std::find(words.begin(), words.end(),
                    "--workload-cmd=touch " + (marks / "first").string()) != words.end());
    CHECK(std::find(words.begin(), words.end(), "--workdir=" + b.work.string()) != words.end());
    CHECK(std::none_of(words.begin(), words.end(),
                       [](const std::string& w) { return w.starts_with("--con"); }));
    // The first turn measured as the file said at the start.
    b.boot_in_label(s, 0);
    auto step = b.step();
    INFO(step.err);
    REQUIRE(step.exit_code == 0);
    REQUIRE(b.turns().list[0].status == TurnStatus::done);
    CHECK(fs::exists(marks / "first"));
    fs::remove(marks / "first");
    // Between the boots the user changes their file, and their folder: the
    // start folder renamed away, another in its place, each with a file
    // naming another command and a workdir of theirs.
    const fs::path theirs = home / "work";
    const std::string evil = "workload-cmd = touch " + (marks / "second").string() +
                             "\nworkdir = " + theirs.string() + "\n";
    as_nobody("printf \"%s\" \"" + evil + "\" > " + (start / "c.ini").string() + " && mv " +
              start.string() + " " + (home / "start.old").string() + " && mkdir " + start.string() +
              " && printf \"%s\" \"" + evil + "\" > " + (start / "c.ini").string() + " && mkdir " +
              theirs.string());
    b.boot_in_label(s, 1);
    step = b.step();
    INFO(step.err);
    CHECK(step.exit_code == 0);
    s = b.state();
    CHECK(b.turns().list[1].status == TurnStatus::done);
    // Neither file's new command ran; the start's did, in root's workdir.
    CHECK(fs::exists(marks / "first"));
    CHECK_FALSE(fs::exists(marks / "second"));
    CHECK(fs::is_empty(theirs));
    for (const auto& label : {"rt", "std"}) {
        const ResultFile file = b.file_of(label);
        REQUIRE(file.runs.size() == 1);
        CHECK(file.runs[0].ok());
        CHECK(file.config["workdir"] == b.work.string());
    }
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "run --boot: a step takes the turn the journal's plan names next, its round, label and loads, "
    "not one planned again",
    "[boot][e2e][journal]") {
    BootBench b("journal-turns");
    const auto o = b.start({"-n", "2", "no_load"});
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    // The plan's last turn (round 2) moved first in the journal.
    JournalTurns turns = b.turns();
    REQUIRE(turns.list.size() == 4);
    std::rotate(turns.list.begin(), turns.list.end() - 1, turns.list.end());
    const JournalTurn moved = turns.list[0];
    REQUIRE(moved.round == 2);
    const BootState s = b.state();
    write_boot_run(b.state_path(), s, turns);
    b.boot_in_label(s, 0);
    const auto step = b.step();
    INFO(step.err);
    REQUIRE(step.exit_code == 0);
    CHECK(b.turns().list[0].status == TurnStatus::done);
    CHECK(b.turns().list[0].round == 2);
    CHECK(b.turns().next == 1);
    const ResultFile file = b.file_of(s.labels.at(moved.label).label);
    REQUIRE(file.runs.size() == 1);
    CHECK(file.runs[0].round == 2);
    CHECK(file.runs[0].load == "no_load");
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "run --boot: each step runs the config its journal holds and parses no command word, a "
    "journal that is not one is refused naming its field, nothing run",
    "[boot][e2e][journal]") {
    BootBench b("journal");
    const fs::path marks = b.dir / "marks";
    fs::create_directories(marks);
    const auto o = b.start({"-n", "1", "no_load"});
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    const fs::path path = b.results / kRunJournalName;
    RunJournal journal = read_run_journal(path);
    CHECK(journal.config.workload.workload_cmd == "true");
    CHECK(journal.config.seed == 3u);
    // The recorded words made unparseable, the config's command changed: a
    // step that parsed words would refuse them or run the start's command.
    journal.config.command_line = {"run", "--no-such-option", "--runs=-1"};
    journal.config.workload.workload_cmd = "touch " + (marks / "journal").string();
    write_run_journal(path, journal);
    BootState s = b.state();
    b.boot_in_label(s, 0);
    auto step = b.step();
    INFO(step.err);
    REQUIRE(step.exit_code == 0);
    CHECK(b.turns().list[0].status == TurnStatus::done);
    CHECK(fs::exists(marks / "journal"));
    // A journal with a field of the wrong type: the step refuses it in one
    // line naming the field, and takes no turn.
    nlohmann::json text = nlohmann::json::parse(test::slurp(path));
    text["config"]["runs"] = "1";
    test::put_file(path, text.dump());
    b.boot_in_label(s, 1);
    step = b.step();
    CHECK(step.exit_code == 2);
    CHECK(step.err.find(path.string() + ": config: runs: not a whole number >= 0") !=
          std::string::npos);
    CHECK(b.turns().list[1].status == TurnStatus::pending);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "run --boot: a workdir, or a path a later step reads or writes, that anyone but root could "
    "change is "
    "refused at the start (exit 2, one line), nothing made",
    "[boot][e2e]") {
    BootBench b("untrusted-paths");
    const fs::path home = b.dir / "home";
    fs::create_directories(home);
    // A .config of the user's (the kernel workload's own check reads it first).
    test::put_file(home / "my.config", "CONFIG_X=y\n");
    REQUIRE(::chown(home.c_str(), 65534, 65534) == 0);
    const struct {
        std::string option, value, said;
    } cases[] = {
        {"--workdir", (home / "work").string(), "--boot: the workdir " + (home / "work").string()},
        {"--kernel-source", (home / "linux.tar.xz").string(),
         "--kernel-source " + (home / "linux.tar.xz").string()},
        {"--kernel-config", (home / "my.config").string(),
         "--kernel-config " + (home / "my.config").string()},
        // The results database every later step writes, in the user's folder.
        {"--db", (home / "history.sqlite").string(), "--db " + (home / "history.sqlite").string()},
    };
    for (const auto& c : cases) {
        std::vector<std::string> args = b.run_args({"-n", "1", "no_load"});
        if (const auto at = std::find(args.begin(), args.end(), c.option); at != args.end())
            *std::next(at) = c.value;
        else
            args.insert(args.end(), {c.option, c.value});
        const auto o = test::run_contest_binary(args, b.dir.path(), b.dir.path());
        INFO(o.err);
        CHECK(o.exit_code == 2);
        CHECK(o.err.find(c.said) != std::string::npos);
        CHECK(o.err.find("owned by uid 65534") != std::string::npos);
        CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
        CHECK_FALSE(fs::exists(b.results));
        CHECK_FALSE(fs::exists(boot_unit_path(b.root)));
        CHECK_FALSE(fs::exists(home / "work"));
    }
}
