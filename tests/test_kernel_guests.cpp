// `contest run --kernel`: real guests, booted under TCG (software
// emulation, which works on every x86 host) from a real Debian kernel
// package. Tagged [vm]: ctest runs them as one entry of their own (vm_guests)
// with a COST, so it starts them first, beside the rest.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "contest/cli/cli_common.h"
#include "contest/cli/run_options.h"
#include "contest/result/result_file.h"
#include "contest/run/places/guests/kernel_guests.h"
#include "contest/run/plan/run_order.h"
#include "contest/sys/own_binary.h"
#include "contest/sys/progress.h"
#include "contest/vm/cpio_archive.h"
#include "contest/vm/guest.h"
#include "contest/vm/initramfs.h"
#include "contest/vm/kernel_image.h"
#include "loads/registry.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

std::string kernel_package() {
    return test::debian_kernel_package();
}

std::string shared_workdir() {
    return test::vm_test_workdir().string();
}

// `contest run` of two labels of the kernel package under TCG with a command
// workload, in the shared workdir; `rest`: the run's own options and loads.
std::vector<std::string> two_guests_run(const std::string& first, const std::string& second,
                                        const std::string& workload_cmd, const std::string& results,
                                        const std::vector<std::string>& rest) {
    const std::string package = kernel_package();
    std::vector<std::string> args = {"run",
                                     "--kernel",
                                     first + "=" + package,
                                     "--kernel",
                                     second + "=" + package,
                                     "--vm-accel",
                                     "tcg",
                                     "-w",
                                     "command",
                                     "--workload-cmd",
                                     workload_cmd,
                                     "--workdir",
                                     shared_workdir(),
                                     "--results",
                                     results};
    args.insert(args.end(), rest.begin(), rest.end());
    return args;
}

// The kernel package as a .deb file already fetched into the shared
// workdir's cache (a fresh workdir then unpacks it, with no network), else
// the package's name.
std::string kernel_deb_or_package() {
    std::error_code ec;
    for (auto it =
             fs::recursive_directory_iterator(fs::path(shared_workdir()) / "vm" / "cache", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->path().extension() == ".deb" &&
            it->path().filename().string().starts_with(kernel_package() + "_"))
            return it->path().string();
    return kernel_package();
}

std::vector<ResultFile> files_of(const fs::path& results, const std::string& label) {
    std::vector<std::string> bad;
    return read_result_paths({results / label}, bad);
}

// The pids of QEMU processes whose command line names `marker`.
std::vector<pid_t> qemu_processes(const std::string& marker) {
    std::vector<pid_t> out;
    for (const auto& e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmdline = test::slurp(e.path() / "cmdline");
        if (cmdline.starts_with(std::string(CONTEST_BINARY))) continue;
        if (cmdline.find("qemu-system") != std::string::npos &&
            cmdline.find(marker) != std::string::npos)
            out.push_back(static_cast<pid_t>(std::stol(name)));
    }
    return out;
}

// The items of one of QEMU's option lists as QEMU splits them: a comma ends
// an item, two commas are a literal one; "key=value", or a bare word.
std::vector<std::pair<std::string, std::string>> qemu_option_items(const std::string& list) {
    std::vector<std::pair<std::string, std::string>> items;
    std::string item;
    auto end_item = [&] {
        const auto eq = item.find('=');
        items.emplace_back(item.substr(0, eq), eq == std::string::npos ? "" : item.substr(eq + 1));
        item.clear();
    };
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (list[i] != ',') {
            item += list[i];
        } else if (i + 1 < list.size() && list[i + 1] == ',') {
            item += ',';
            ++i;
        } else {
            end_item();
        }
    }
    end_item();
    return items;
}

std::vector<std::string> values_of(const std::vector<std::pair<std::string, std::string>>& items,
                                   const std::string& key) {
    std::vector<std::string> out;
    for (const auto& [k, v] : items)
        if (k == key) out.push_back(v);
    return out;
}

// The arguments that follow `option` in argv.
std::vector<std::string> arguments_of(const std::vector<std::string>& argv,
                                      const std::string& option) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
        if (argv[i] == option) out.push_back(argv[i + 1]);
    return out;
}

void write_text(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// A real result file of contest's, to plant behind links.
fs::path a_result_file() {
    return fs::path(CONTEST_TEST_DATA) / "results" / "kernels" / "6.1.0-rt" /
           "2024-05-03T090000Z.json";
}

}  // namespace

TEST_CASE("qemu_argv: a path holding commas or file= is one value of QEMU's option lists", "[vm]") {
    // A workdir like this one made the host's /dev/null (or /dev/sda) the
    // guest's disk when pasted into -drive as it is.
    const fs::path run = "/srv/a,file=/dev/null,/vm/run-1";
    GuestBoot boot;
    boot.kernel = run / "vmlinuz";
    boot.initramfs = run / "initramfs.cpio";
    boot.scratch_disk = run / "disk.img";
    boot.out_dir = run / "out";
    boot.console_log = run / "console.log";
    const auto argv = qemu_argv(boot);
    const auto drives = arguments_of(argv, "-drive");
    REQUIRE(drives.size() == 1);
    const auto drive = qemu_option_items(drives[0]);
    INFO(drives[0]);
    CHECK(values_of(drive, "file") == std::vector<std::string>{boot.scratch_disk.string()});
    CHECK(values_of(drive, "format") == std::vector<std::string>{"raw"});
    CHECK(values_of(drive, "if") == std::vector<std::string>{"virtio"});
    CHECK(drive.size() == 3);
    std::vector<std::string> out_paths;
    for (const auto& share : arguments_of(argv, "-virtfs")) {
        INFO(share);
        const auto items = qemu_option_items(share);
        CHECK(values_of(items, "path").size() == 1);
        if (values_of(items, "mount_tag") == std::vector<std::string>{"out"}) {
            out_paths = values_of(items, "path");
            // The guest's root must not make links, devices or setuid files
            // on the host: ownership and modes are kept as metadata.
            CHECK(values_of(items, "security_model") == std::vector<std::string>{"mapped-file"});
        }
    }
    CHECK(out_paths == std::vector<std::string>{boot.out_dir.string()});
    // -kernel and -initrd take a path as it is (no option list).
    CHECK(arguments_of(argv, "-kernel") == std::vector<std::string>{boot.kernel.string()});
    CHECK(arguments_of(argv, "-initrd") == std::vector<std::string>{boot.initramfs.string()});

    // A relative path is made absolute: "nbd:host:1/disk.img" would name a
    // protocol to QEMU's block layer.
    boot.scratch_disk = "nbd:localhost:10809/disk.img";
    const auto relative = qemu_option_items(arguments_of(qemu_argv(boot), "-drive").at(0));
    CHECK(values_of(relative, "file") ==
          std::vector<std::string>{(fs::current_path() / boot.scratch_disk).string()});
}

TEST_CASE("qemu_argv: a forwarded SSH port is a user network on a virtio NIC, on the loopback only",
          "[vm]") {
    GuestBoot boot;
    boot.kernel = "/vm/vmlinuz";
    boot.initramfs = "/vm/initramfs.cpio";
    boot.console_log = "/vm/console.log";
    // None asked: no network at all (-nodefaults gives no default NIC).
    CHECK(arguments_of(qemu_argv(boot), "-netdev").empty());
    CHECK(arguments_of(qemu_argv(boot), "-device").empty());

    boot.ssh_forward_port = 10022;
    const auto argv = qemu_argv(boot);
    const auto netdevs = arguments_of(argv, "-netdev");
    REQUIRE(netdevs.size() == 1);
    INFO(netdevs[0]);
    // "user", the backend, is the first item: a bare word.
    const auto netdev = qemu_option_items(netdevs[0]);
    REQUIRE(netdev.size() == 3);
    CHECK(netdev[0] == std::pair<std::string, std::string>{"user", ""});
    CHECK(values_of(netdev, "id") == std::vector<std::string>{"n0"});
    // Bound to 127.0.0.1, not every address of this machine.
    CHECK(values_of(netdev, "hostfwd") == std::vector<std::string>{"tcp:127.0.0.1:10022-:22"});
    CHECK(arguments_of(argv, "-device") == std::vector<std::string>{"virtio-net-pci,netdev=n0"});
}

TEST_CASE("a guest's results share is read as untrusted: no link followed, no FIFO waited on",
          "[vm]") {
    test::ScratchDir dir("guest-share");
    const fs::path secret = dir / "secret.txt";
    write_text(secret, "SECRET-LINE\n");
    const fs::path out = dir / "out";

    SECTION("links and FIFOs as the result file are refused, and said") {
        fs::create_directories(out / "results" / "a");
        fs::create_symlink(a_result_file(), out / "results" / "a" / "link.json");
        fs::create_directory_symlink(a_result_file().parent_path(), out / "results" / "b");
        REQUIRE(::mkfifo((out / "results" / "a" / "fifo.json").c_str(), 0600) == 0);
        const ResultBroughtBack got = read_result_brought_back(out / "results");
        CHECK_FALSE(got.result);
        INFO(got.problem);
        CHECK_THAT(got.problem, Catch::Contains("link.json") && Catch::Contains("symbolic link"));
        CHECK_THAT(got.problem, Catch::Contains("fifo.json: not a regular file"));
        CHECK_THAT(got.problem, Catch::Contains("results/b") && Catch::Contains("symbolic link"));
    }
    SECTION("a real result file beside planted ones is read") {
        fs::create_directories(out / "results" / "a");
        fs::copy_file(a_result_file(), out / "results" / "a" / "real.json");
        fs::create_symlink(secret, out / "results" / "a" / "z.json");
        const ResultBroughtBack got = read_result_brought_back(out / "results");
        REQUIRE(got.result);
        CHECK(got.result->path.filename() == "real.json");
    }
    SECTION("a malformed or oversized result file: the reader's reason") {
        write_text(out / "results" / "a" / "x.json", "{\n  \"schema_version\":\n");
        ResultBroughtBack got = read_result_brought_back(out / "results");
        CHECK_FALSE(got.result);
        CHECK_THAT(got.problem, Catch::Contains("x.json:3: malformed JSON"));
        fs::remove(out / "results" / "a" / "x.json");
        write_text(out / "results" / "a" / "big.json", "");
        fs::resize_file(out / "results" / "a" / "big.json", kMaxResultFileBytes + 1);
        got = read_result_brought_back(out / "results");
        CHECK_FALSE(got.result);
        CHECK_THAT(got.problem, Catch::Contains("big.json: larger than"));
    }
    SECTION("no result file at all") {
        fs::create_directories(out);
        CHECK_THAT(read_result_brought_back(out / "results").problem,
                   Catch::Contains("no result file"));
    }
    SECTION("guest.log as a link is not read through") {
        fs::create_directories(out);
        fs::create_symlink(secret, out / "guest.log");
        CHECK_THAT(guest_log_tail(out, 6), !Catch::Contains("SECRET"));
    }
    SECTION("guest.log as a FIFO is not waited on") {
        fs::create_directories(out);
        const fs::path fifo = out / "guest.log";
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        // A writer that comes 1 s later: a reader that waits on the FIFO
        // returns only then (with no writer, never), one that refuses it at once.
        std::atomic<bool> writer_came{false};
        std::thread writer([&] {
            std::this_thread::sleep_for(1s);
            writer_came = true;
            for (int i = 0; i < 5; ++i) {
                const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
                if (fd >= 0) {
                    const std::string text = "FROM-THE-FIFO\n";
                    (void)!::write(fd, text.data(), text.size());
                    ::close(fd);
                    return;
                }
                std::this_thread::sleep_for(100ms);
            }
        });
        const std::string tail = guest_log_tail(out, 6);
        const bool returned_before_the_writer = !writer_came;
        writer.join();
        CHECK(returned_before_the_writer);
        CHECK_THAT(tail, !Catch::Contains("FROM-THE-FIFO"));
    }
}

TEST_CASE("a cpio newc archive holds its entries as the kernel reads them", "[vm]") {
    CpioArchive cpio;
    cpio.add_dir("bin");
    cpio.add_file("init", "#!/bin/sh\n", 0755);
    cpio.add_char_device("dev/console", 5, 1);
    const std::string bytes = cpio.finish();
    REQUIRE(bytes.size() % 4 == 0);
    test::ScratchDir dir("cpio");
    std::ofstream(dir / "a.cpio", std::ios::binary) << bytes;
    // busybox's cpio as the independent reader.
    const std::string listing = test::shell_output("cd " + dir.path().string() +
                                                   " && busybox cpio -itv < a.cpio 2>/dev/null");
    CHECK_THAT(listing, Catch::Contains("drwxr-xr-x 0/0         0 1970-01-01 00:00:00 bin"));
    CHECK_THAT(listing, Catch::Contains("-rwxr-xr-x 0/0        10 1970-01-01 00:00:00 init"));
    CHECK_THAT(listing,
               Catch::Contains("crw------- 0/0         0 1970-01-01 00:00:00 dev/console"));
    fs::create_directories(dir / "x");
    test::shell_output("cd " + (dir / "x").string() +
                       " && busybox cpio -id < ../a.cpio 2>/dev/null");
    CHECK(test::slurp(dir / "x" / "init") == "#!/bin/sh\n");
}

TEST_CASE("run --kernel: each round boots each kernel once, in a shuffled order", "[vm]") {
    const std::vector<std::string_view> loads = {"no_load", "cpu_load", "io_load"};
    const auto plan = plan_kernel_runs(loads, 3, RunOrder::shuffled, 7, 2);
    REQUIRE(plan.size() == 3 * 3 * 2);
    std::set<std::pair<unsigned, std::size_t>> guests;
    for (std::size_t k = 0; k < plan.size(); ++k) {
        // A (round, kernel) pair is one stretch of the plan: one boot.
        if (k == 0 || plan[k].index != plan[k - 1].index || plan[k].label != plan[k - 1].label)
            CHECK(guests.insert({plan[k].index, plan[k].label}).second);
    }
    CHECK(guests.size() == 6);
    for (std::size_t k = 0; k < plan.size(); k += 3) {
        // Each guest's loads shuffled with its own seed...
        const auto shuffled =
            plan_runs(loads, 1, RunOrder::shuffled, turn_seed(7, plan[k].index, plan[k].label));
        std::vector<std::string_view> given;
        for (std::size_t j = 0; j < 3; ++j) {
            CHECK(plan[k + j].load == shuffled[j].load);
            given.push_back(loads[plan[k + j].load]);
        }
        // ...and given so to the guest's contest, whose --order rounds keeps them.
        const auto guest = plan_runs(given, 1, RunOrder::rounds, 1);
        for (std::size_t j = 0; j < 3; ++j) CHECK(guest[j].load == j);
    }
}

TEST_CASE("run --kernel: a guest's --order rounds keeps the order given, cacherun after no_load",
          "[vm]") {
    // Any order the host plans: cacherun already follows no_load in it.
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const std::vector<std::string_view> loads = {"no_load", "cacherun", "cpu_load", "io_load"};
        const auto plan = plan_kernel_runs(loads, 1, RunOrder::shuffled, seed, 1);
        std::vector<std::string_view> given;
        for (const auto& step : plan) given.push_back(loads[step.load]);
        const auto guest = plan_runs(given, 1, RunOrder::rounds, seed);
        REQUIRE(guest.size() == given.size());
        for (std::size_t j = 0; j < given.size(); ++j) CHECK(guest[j].load == j);
    }
}

// One run checks two things, since each guest's boot is most of a [vm]
// test's time: the pairing of two kernels' rounds, and the results share
// as a hostile guest leaves it.
TEST_CASE(
    "run --kernel: two kernels, two rounds, booted under TCG: results from the guests, paired by "
    "round, emulated, each guest's loads in the order recorded, a workdir with commas, and a "
    "guest that plants links and a FIFO on its results share",
    "[vm][e2e][vm-pair]") {
    const std::string package = kernel_package();
    REQUIRE_FALSE(package.empty());
    test::ScratchDir dir("vm-pair");
    // Pasted into -drive as it is, this made /dev/null the guest's disk.
    const fs::path workdir = dir / "w,file=/dev/null,";
    const fs::path results = dir / "results";
    // Each guest's root plants links to the host's secrets and a FIFO where
    // the host reads: its log and its results (first's folder, for both).
    const std::string plant =
        "sleep 1; mkdir -p /mnt/out/results/first; ln -sf /etc/shadow /mnt/out/guest.log; "
        "ln -sf /etc/shadow /mnt/out/results/first/a-link.json; "
        "mkfifo /mnt/out/results/first/b-fifo.json 2>/dev/null; true";
    const std::vector<std::string_view> loads = {"no_load", "cpu_load"};
    const std::string kernel = kernel_deb_or_package();
    auto o = test::run_contest_binary(
        {"run", "--kernel", "first=" + kernel, "--kernel", "second=" + kernel, "--vm-accel", "tcg",
         "-w", "command", "--workload-cmd", "sh -c '" + plant + "'", "--workdir", workdir.string(),
         "--results", results.string(), "-n", "2", "--seed", "7", "--boot-append",
         "second=contest_mark=2",
         // One vCPU: under TCG a second is a second host thread taken from
         // the tests beside (the default shape boots in the tests below).
         "--vm-cpus", "1",
         // A kernel with no way to power off: its init reboots instead.
         "--vm-append", "acpi=off noapic", "-q", "no_load", "cpu_load"},
        dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("EMULATED"));
    // The order the host plans and records; with this seed some guest's
    // round has cpu_load first, so a guest that kept the loads as typed
    // (or shuffled them again) would not match it.
    const auto plan = plan_kernel_runs(loads, 2, RunOrder::shuffled, 7, 2);
    auto planned = [&](std::size_t kernel, int round) {
        std::vector<std::string> names;
        for (const auto& step : plan)
            if (step.label == kernel && static_cast<int>(step.index) == round)
                names.emplace_back(loads[step.load]);
        return names;
    };
    bool reordered = false;
    for (std::size_t v = 0; v < 2; ++v)
        for (int round = 1; round <= 2; ++round)
            reordered |= planned(v, round).front() != "no_load";
    REQUIRE(reordered);
    std::string group;
    const std::vector<std::string> labels = {"first", "second"};
    for (std::size_t v = 0; v < labels.size(); ++v) {
        INFO(labels[v]);
        auto files = files_of(results, labels[v]);
        REQUIRE(files.size() == 1);
        const ResultFile& f = files.front();
        REQUIRE(f.runs.size() == 4);
        for (const auto& r : f.runs) CHECK(r.ok());
        for (int round = 1; round <= 2; ++round) {
            INFO("round " << round);
            std::vector<const RunRecord*> runs;
            for (const auto& r : f.runs)
                if (r.round == round) runs.push_back(&r);
            auto names = [](const std::vector<const RunRecord*>& in) {
                std::vector<std::string> out;
                for (const auto* r : in) out.push_back(r->load);
                return out;
            };
            // As recorded, and as the guest's own clock saw them start.
            CHECK(names(runs) == planned(v, round));
            for (const auto* r : runs) REQUIRE(r->timeline.contains("t0_unix_s"));
            std::sort(runs.begin(), runs.end(), [](const RunRecord* a, const RunRecord* b) {
                return a->timeline["t0_unix_s"].get<double>() <
                       b->timeline["t0_unix_s"].get<double>();
            });
            CHECK(names(runs) == planned(v, round));
        }
        CHECK(f.config["vm"]["emulated"] == true);
        CHECK(f.config["vm"]["accel"] == "tcg");
        // The guest's own fingerprint: the package's kernel, not the host's.
        const std::string release = f.config["kernel"]["release"];
        CHECK_THAT(package, Catch::Contains(release));
        CHECK(f.system["kernel_release"] == release);
        // --boot-append: the label's own parameters on its guests' command line only.
        CHECK((f.system["kernel"]["cmdline"].get<std::string>().find("contest_mark=2") !=
               std::string::npos) == (labels[v] == "second"));
        // The guest's own contest read the image's .config from its /boot.
        CHECK(f.system["kernel"]["config"]["sha256"] == f.config["kernel"]["config"]["sha256"]);
        CHECK(f.config["kernel"]["config"].contains("sha256"));
        CHECK(f.config["vm"]["boots"].size() == 2);
        if (group.empty()) group = f.config["vary"]["group"];
        CHECK(f.config["vary"]["group"] == group);
    }
    // On the host the last guest's links and FIFO are plain files (the share
    // keeps them as metadata), in the run's share.
    std::vector<fs::path> shares;
    for (const auto& e : fs::directory_iterator(workdir / "vm"))
        if (e.path().filename().string().starts_with("run-")) shares.push_back(e.path() / "out");
    REQUIRE(shares.size() == 1);
    for (const fs::path& planted :
         {shares[0] / "guest.log", shares[0] / "results/first/a-link.json",
          shares[0] / "results/first/b-fifo.json"}) {
        INFO(planted);
        CHECK(fs::is_regular_file(fs::symlink_status(planted)));
    }
    // report and compare pair the two kernels' runs by round, and say so loudly.
    auto compare = test::run_contest_binary(
        {"compare", "--results", results.string(), "first", "second"}, dir.path());
    INFO(compare.err);
    CHECK(compare.exit_code == 0);
    CHECK(compare.out.starts_with("*** EMULATED TIMES"));
    CHECK_THAT(compare.out, Catch::Contains("per-round"));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "run --kernel: a guest that hangs is killed at its boot timeout, its runs fail with the "
    "console's "
    "tail",
    "[vm][e2e]") {
    const std::string package = kernel_package();
    REQUIRE_FALSE(package.empty());
    test::ScratchDir dir("vm-hang");
    const auto started = std::chrono::steady_clock::now();
    // An init that never answers: busybox's sleep as PID 1 (the initramfs has
    // no /bin/sleep before its init installs the applets).
    auto o = test::run_contest_binary(
        two_guests_run("a", "b", "true", (dir / "results").string(),
                       {"--vm-append", "rdinit=/bin/busybox -- sleep 3600", "--vm-boot-timeout",
                        "2", "-n", "1", "-q", "no_load", "cpu_load"}),
        dir.path());
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    INFO(o.err);
    CHECK(o.exit_code == 1);
    CHECK(took < 120);  // two guests of 2 s each, with a wide margin
    for (const std::string label : {"a", "b"}) {
        auto files = files_of(dir / "results", label);
        REQUIRE(files.size() == 1);
        REQUIRE(files.front().runs.size() == 2);
        for (const auto& r : files.front().runs) {
            CHECK(r.status == RunStatus::guest_failed);
            CHECK_THAT(r.reason, Catch::Contains("did not come up within 2 s"));
            CHECK_THAT(r.reason, Catch::Contains("the last lines of its console"));
        }
    }
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("run --kernel: Ctrl-C, SIGTERM or SIGKILL of contest mid-boot leaves no QEMU",
          "[vm][e2e]") {
    const std::string package = kernel_package();
    REQUIRE_FALSE(package.empty());
    for (int sig : {SIGINT, SIGTERM, SIGKILL}) {
        INFO("signal " << sig);
        test::ScratchDir dir("vm-kill-" + std::to_string(sig));
        const std::string results = (dir / "results").string();
        pid_t pid = test::start_contest(
            two_guests_run(
                "a", "b", "true", results,
                {"--vm-append", "rdinit=/bin/busybox -- sleep 3600", "-n", "1", "no_load"}),
            dir.path());
        // Its guest's QEMU, found by the run folder in its command line.
        const std::string marker = "run-" + std::to_string(pid) + "/";
        std::vector<pid_t> qemu;
        for (int i = 0; i < 600 && qemu.empty(); ++i) {
            std::this_thread::sleep_for(100ms);
            qemu = qemu_processes(marker);
        }
        REQUIRE_FALSE(qemu.empty());
        ::kill(pid, sig);
        auto o = test::finish_contest(pid, dir.path());
        CHECK(o.exit_code == (sig == SIGKILL ? 128 + SIGKILL : 130));
        for (int i = 0; i < 100 && !qemu_processes(marker).empty(); ++i)
            std::this_thread::sleep_for(100ms);
        CHECK(qemu_processes(marker).empty());
        CHECK(test::leftover_processes().empty());
    }
}

namespace {

// A value of a run option as a parser holds it, the same as another: by its
// type, so that 0.30000000000000004 is not 0.3.
bool same_value(const boost::any& a, const boost::any& b) {
    if (a.type() != b.type()) return false;
    bool same = false, known = false;
    auto as = [&]<typename T>(T*) {
        if (a.type() == typeid(T)) {
            known = true;
            same = boost::any_cast<const T&>(a) == boost::any_cast<const T&>(b);
        }
    };
    as((std::string*)nullptr);
    as((std::vector<std::string>*)nullptr);
    as((bool*)nullptr);
    as((int*)nullptr);
    as((unsigned*)nullptr);
    as((std::int64_t*)nullptr);
    as((std::uint64_t*)nullptr);
    as((double*)nullptr);
    INFO("a value of type " << a.type().name() << " this test cannot compare");
    CHECK(known);
    return same;
}

}  // namespace

TEST_CASE("run --kernel: every option the host took reaches the guests with the same value",
          "[cli]") {
    // A value for every option of the table that reaches the guests (a new
    // one needs a value here), some from the config file, some from the
    // command line, the composing ones from both; values that start with
    // '-' (some a short option's name), with spaces and '=', empty, a bare
    // implicit value, a false switch, a double %.15g would round.
    std::vector<std::string> words = {
        "run", "--workload", "command", "--synthetic-size", "7", "--kernel-config=defconfig",
        "--workload-cmd=-q", "--prepare-cmd", "echo a=b  c", "--warmup=0.25",
        "--timeout=0.30000000000000004", "--no-drop-caches", "--timeline-hz=0",
        "--vary=vm.swappiness=10,60", "--vary=-x=1,2", "--load-cmd=roundtrip_cli=-foo x=y",
        "--load-cmd-units", "roundtrip_cli=echo -n", "--latency", "--latency-method=poll",
        "--latency-priority=7", "--latency-exec-cmd=-n 1",
        // The host's own, which the guests must not get.
        "--kernel=-a=bzImage", "--kernel=b=bzImage", "--runs=2", "--vm-cpus=3", "-q"};
    std::string config =
        "jobs = 3\n"
        "kernel-source = -k\n"
        "clean-cmd =\n"
        "warmup = 0.1\n"  // the command line's wins
        "settle = 1.5\n"
        "perf = false\n"
        "vary-label = --perf={value} x\n"
        "load-cmd = roundtrip_file=sleep 1\n"
        "load-cmd-units = roundtrip_file=echo 1\n"
        "latency-interval-us = 250\n"
        "latency-policy = fifo\n"
        "latency-dist = 5000\n"
        "latency-exec-missed-ms = 12.5\n"
        "vm-memory = 512\n";
    // Every load's own options, alternately from either side.
    bool in_file = false;
    std::set<std::string_view> load_options;
    for (const LoadInfo* load : load_registry())
        for (const LoadOption* o : load->options) {
            if (!load_options.insert(o->name).second) continue;  // another load's too
            const std::string value =
                o->kind == LoadOptionKind::text ? "-o x=y" : number_text(o->min);
            if ((in_file = !in_file))
                config += std::string(o->name) + " = " + value + "\n";
            else
                words.push_back("--" + std::string(o->name) + "=" + value);
        }
    // The options given a value, from either side.
    std::set<std::string> given;
    for (const auto& w : words)
        if (w.starts_with("--")) given.insert(w.substr(2, w.find('=') - 2));
    std::istringstream lines(config);
    for (std::string line; std::getline(lines, line);) given.insert(line.substr(0, line.find(' ')));
    test::ScratchDir dir("run-options");
    std::ofstream(dir / "run.conf") << config;
    words.insert(words.end(), {"--config", (dir / "run.conf").string()});

    RunOptions host;
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    REQUIRE(host.parse(static_cast<int>(argv.size()), argv.data()));
    const auto& h = host.values();
    // The test gives what it means to: the command line's --warmup won, and
    // --load-cmd has the values of both.
    REQUIRE(h["warmup"].as<double>() == 0.25);
    REQUIRE(h["load-cmd"].as<std::vector<std::string>>().size() == 2);

    std::vector<std::string> guest_words = {"run"};
    for (const auto& w : host.delegated_arguments()) {
        INFO(w);
        // A value never stands alone, where it could be read as an option;
        // an empty one may: it is no option.
        CHECK((w.empty() || w.starts_with("--")));
        guest_words.push_back(w);
    }
    RunOptions guest;
    std::vector<char*> guest_argv;
    for (auto& w : guest_words) guest_argv.push_back(w.data());
    REQUIRE(guest.parse(static_cast<int>(guest_argv.size()), guest_argv.data()));
    const auto& g = guest.values();

    for (const auto& o : host.table()) {
        const std::string name = o.description->long_name();
        INFO("--" << name);
        const bool guest_has = g.count(name) && !g[name].defaulted();
        if (!reaches_delegated(o.scope)) {
            CHECK_FALSE(guest_has);
            continue;
        }
        CHECK(given.count(name) == 1);  // this test gives it a value
        REQUIRE(h.count(name) == 1);
        REQUIRE(g.count(name) == 1);
        CHECK(same_value(h[name].value(), g[name].value()));
    }
}

TEST_CASE("an option of a table that a config file may not set is refused there, with its line",
          "[cli]") {
    std::string kept, file_only;
    CommandLine cl;
    cl.name = "test";
    cl.accepts_config = true;
    add_options(cl, {{"kept", OptionScope::host, po::value(&kept), "", FromConfig::no},
                     {"other", OptionScope::host, po::value(&file_only), ""}});
    test::ScratchDir dir("config-refused");
    std::ofstream(dir / "c.conf") << "other = x\nkept = y\n";
    std::vector<std::string> words = {"test", "--kept=z", "--config", (dir / "c.conf").string()};
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    po::variables_map vm;
    REQUIRE_THROWS_WITH(parse_command_line(cl, static_cast<int>(argv.size()), argv.data(), vm),
                        Catch::Contains("c.conf:2:") && Catch::Contains("kept"));
}

TEST_CASE("run --kernel --runs auto: rounds stop as a --vary run's do, the reason in every file",
          "[vm][e2e]") {
    const std::string package = kernel_package();
    REQUIRE_FALSE(package.empty());
    test::ScratchDir dir("vm-auto");
    // A budget the first round already spends: one boot of each kernel. A
    // label that is an option's name (-q) must stay a label in the guest.
    auto o = test::run_contest_binary(
        two_guests_run("-q", "b", "true", (dir / "results").string(),
                       {"--runs", "auto", "--budget", "1s", "--vm-cpus", "1", "-q", "no_load"}),
        dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK_THAT(o.err, Catch::Contains("--runs auto stopped"));
    for (const std::string label : {"-q", "b"}) {
        INFO(label);
        auto files = files_of(dir / "results", label);
        REQUIRE(files.size() == 1);
        REQUIRE(files.front().runs.size() == 1);
        CHECK(files.front().runs.front().status == RunStatus::ok);
        CHECK_THAT(files.front().stopped_because, Catch::Contains("--budget 1s"));
    }
    CHECK(test::leftover_processes().empty());
}

// Run by the test below in a copy of this binary whose file it removes first.
TEST_CASE("own binary copied after its file is gone (helper)", "[.own-binary-helper]") {
    const char* to = std::getenv("CONTEST_TEST_COPY_TO");
    REQUIRE(to);
    // As a relink does: the running binary's file removed, a new one in its place.
    const fs::path self = fs::read_symlink("/proc/self/exe");
    fs::remove(self);
    std::ofstream(self) << "a newer build\n";
    copy_own_binary(to);
}

TEST_CASE("run --kernel: contest's binary is copied for the guests even once relinked",
          "[kernel_runs]") {
    test::ScratchDir dir("own-binary");
    const fs::path tests_binary = fs::read_symlink("/proc/self/exe");
    const fs::path running = dir / "contest_tests";
    std::error_code ec;
    fs::create_hard_link(tests_binary, running, ec);
    if (ec) fs::copy_file(tests_binary, running);
    const fs::path copy = dir / "copy";
    const std::string status =
        test::shell_output("CONTEST_TEST_COPY_TO=" + copy.string() + " " + running.string() +
                           " 'own binary copied after its file is gone (helper)' >" +
                           (dir / "log").string() + " 2>&1; echo $?");
    INFO(test::slurp(dir / "log"));
    CHECK(status == "0");
    CHECK(test::slurp(running) == "a newer build\n");
    REQUIRE(fs::exists(copy));
    // The binary that ran, byte for byte (cmp: the independent judge).
    CHECK(test::shell_output("cmp " + copy.string() + " " + tests_binary.string() +
                             " && echo same") == "same");
}

TEST_CASE(
    "run_guest: a guest that says it is done and then hangs is stopped a grace later, not at its "
    "timeout, the tick knows it is up",
    "[vm]") {
    const std::string package = kernel_package();
    REQUIRE_FALSE(package.empty());
    test::ScratchDir dir("vm-done-hang");
    Progress quiet(Progress::Mode::kQuiet);
    const KernelImage kernel =
        resolve_kernel_image(package, fs::path(shared_workdir()) / "vm" / "cache", quiet);
    const Initramfs initramfs = build_initramfs(kernel, dir / "initramfs.cpio");
    GuestBoot boot;
    boot.kernel = kernel.image;
    boot.initramfs = initramfs.path;
    boot.console_log = dir / "console.log";
    boot.shape = {1, 256};
    // A kernel that cannot power off (no ACPI) ends like this: its init said
    // it is done, and then nothing happens.
    boot.append = std::string("rdinit=/bin/busybox -- sh -c \"echo ") + kGuestUpLine +
                  "; busybox sleep 1; echo " + kGuestDoneLine + "; busybox sleep 3600\"";
    boot.boot_timeout_s = 400;
    boot.timeout_s = 500;
    boot.end_grace_s = 2;
    bool ticked_up = false, ticked_booting = false;
    const GuestOutcome o =
        run_guest(boot, [&](double, bool up) { (up ? ticked_up : ticked_booting) = true; });
    INFO(o.failure << "; console: " << console_tail(boot.console_log, 4));
    CHECK(o.came_up);
    CHECK(o.finished);
    CHECK_FALSE(o.timed_out);
    // Up, 1 s, done, then the 2 s grace: far from the 500 s timeout.
    CHECK(o.total_s - o.up_s < 60);
    CHECK(ticked_booting);
    CHECK(ticked_up);
    CHECK(test::leftover_processes().empty());
}
