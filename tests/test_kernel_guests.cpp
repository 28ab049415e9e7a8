// `contest run --kernel`: real guests, booted under TCG (software
// emulation, which works on every x86 host) from a real Debian kernel
// package. Tagged [vm]: ctest runs them as one entry of their own (vm_guests)
// with a COST, so it starts them first, beside the rest.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <thread>

#include "contest/cli/cli_common.h"
#include "contest/result/result_file.h"
#include "contest/run/kernel_runs.h"
#include "contest/run/run_order.h"
#include "contest/sys/progress.h"
#include "contest/vm/cpio_archive.h"
#include "contest/vm/guest.h"
#include "contest/vm/initramfs.h"
#include "contest/vm/kernel_image.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// Debian's generic kernel package, the one linux-image-amd64 depends on now
// (contest fetches it with apt-get download into the shared workdir's cache).
std::string kernel_package() {
    static const std::string name = test::shell_output(
        "apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: "
        "\\(linux-image-[0-9].*-amd64\\)$/\\1/p' | head -1");
    return name;
}

// One workdir for every test here, so the package is fetched and unpacked
// once; each run keeps its own disk and shares in vm/run-<pid>.
std::string shared_workdir() {
    return (fs::path(CONTEST_BINARY).parent_path() / "vm-test-workdir").string();
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
        const GuestResultRead got = read_guest_result(out);
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
        const GuestResultRead got = read_guest_result(out);
        REQUIRE(got.result);
        CHECK(got.result->path.filename() == "real.json");
    }
    SECTION("a malformed or oversized result file: the reader's reason") {
        write_text(out / "results" / "a" / "x.json", "{\n  \"schema_version\":\n");
        GuestResultRead got = read_guest_result(out);
        CHECK_FALSE(got.result);
        CHECK_THAT(got.problem, Catch::Contains("x.json:3: malformed JSON"));
        fs::remove(out / "results" / "a" / "x.json");
        write_text(out / "results" / "a" / "big.json", "");
        fs::resize_file(out / "results" / "a" / "big.json", kMaxResultFileBytes + 1);
        got = read_guest_result(out);
        CHECK_FALSE(got.result);
        CHECK_THAT(got.problem, Catch::Contains("big.json: larger than"));
    }
    SECTION("no result file at all") {
        fs::create_directories(out);
        CHECK_THAT(read_guest_result(out).problem, Catch::Contains("no result file"));
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
        // A writer that comes 3 s later: a reader that waits on the FIFO
        // returns only then (with no writer, never), one that refuses it at once.
        std::atomic<bool> writer_came{false};
        std::thread writer([&] {
            std::this_thread::sleep_for(3s);
            writer_came = true;
            for (int i = 0; i < 30; ++i) {
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
        if (k == 0 || plan[k].index != plan[k - 1].index || plan[k].variant != plan[k - 1].variant)
            CHECK(guests.insert({plan[k].index, plan[k].variant}).second);
    }
    CHECK(guests.size() == 6);
    // Each guest's loads in the order its own contest run takes them.
    for (std::size_t k = 0; k < plan.size(); k += 3) {
        const auto own =
            plan_runs(loads, 1, RunOrder::shuffled, guest_seed(7, plan[k].index, plan[k].variant));
        for (std::size_t j = 0; j < 3; ++j) CHECK(plan[k + j].load == own[j].load);
    }
}

TEST_CASE(
    "run --kernel: two kernels, two rounds, booted under TCG: results from the guests, paired by "
    "round, emulated",
    "[vm][e2e][vm-pair]") {
    const std::string package = kernel_package();
    REQUIRE_FALSE(package.empty());
    test::ScratchDir dir("vm-pair");
    auto o = test::run_contest_binary(
        {"run", "--kernel", "first=" + package, "--kernel", "second=" + package, "--vm-accel",
         "tcg", "-n", "2", "-w", "command", "--workload-cmd", "uname -r", "--workdir",
         shared_workdir(), "--results", (dir / "results").string(), "-q", "no_load"},
        dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("EMULATED"));
    std::string group;
    for (const std::string label : {"first", "second"}) {
        auto files = files_of(dir / "results", label);
        REQUIRE(files.size() == 1);
        const ResultFile& f = files.front();
        REQUIRE(f.runs.size() == 2);
        std::set<int> rounds;
        for (const auto& r : f.runs) {
            CHECK(r.ok());
            rounds.insert(r.round);
        }
        CHECK(rounds == std::set<int>{1, 2});
        CHECK(f.config["vm"]["emulated"] == true);
        CHECK(f.config["vm"]["accel"] == "tcg");
        // The guest's own fingerprint: the package's kernel, not the host's.
        const std::string release = f.config["kernel"]["release"];
        CHECK_THAT(package, Catch::Contains(release));
        CHECK(f.system["kernel_release"] == release);
        // The guest's own contest read the image's .config from its /boot.
        CHECK(f.system["kernel"]["config"]["sha256"] == f.config["kernel"]["config"]["sha256"]);
        CHECK(f.config["kernel"]["config"].contains("sha256"));
        CHECK(f.config["vm"]["boots"].size() == 2);
        if (group.empty()) group = f.config["vary"]["group"];
        CHECK(f.config["vary"]["group"] == group);
    }
    // report and compare pair the two kernels' runs by round, and say so loudly.
    auto compare = test::run_contest_binary(
        {"compare", "--results", (dir / "results").string(), "first", "second"}, dir.path());
    INFO(compare.err);
    CHECK(compare.exit_code == 0);
    CHECK(compare.out.starts_with("*** EMULATED TIMES"));
    CHECK_THAT(compare.out, Catch::Contains("per-round"));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "run --kernel: a guest that hangs is killed at its boot timeout; its runs fail with the "
    "console's "
    "tail",
    "[vm][e2e]") {
    const std::string package = kernel_package();
    REQUIRE_FALSE(package.empty());
    test::ScratchDir dir("vm-hang");
    const auto started = std::chrono::steady_clock::now();
    // An init that never answers: busybox's sleep as PID 1 (the initramfs has
    // no /bin/sleep before its init installs the applets).
    auto o = test::run_contest_binary({"run",
                                       "--kernel",
                                       "a=" + package,
                                       "--kernel",
                                       "b=" + package,
                                       "--vm-accel",
                                       "tcg",
                                       "--vm-append",
                                       "rdinit=/bin/busybox -- sleep 3600",
                                       "--vm-boot-timeout",
                                       "5",
                                       "-n",
                                       "1",
                                       "-w",
                                       "command",
                                       "--workload-cmd",
                                       "true",
                                       "--workdir",
                                       shared_workdir(),
                                       "--results",
                                       (dir / "results").string(),
                                       "-q",
                                       "no_load",
                                       "cpu_load"},
                                      dir.path());
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    INFO(o.err);
    CHECK(o.exit_code == 1);
    CHECK(took < 120);  // two guests of 5 s each, with a wide margin
    for (const std::string label : {"a", "b"}) {
        auto files = files_of(dir / "results", label);
        REQUIRE(files.size() == 1);
        REQUIRE(files.front().runs.size() == 2);
        for (const auto& r : files.front().runs) {
            CHECK(r.status == RunStatus::guest_failed);
            CHECK_THAT(r.reason, Catch::Contains("did not come up within 5 s"));
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
        pid_t pid = test::start_contest({"run",
                                         "--kernel",
                                         "a=" + package,
                                         "--kernel",
                                         "b=" + package,
                                         "--vm-accel",
                                         "tcg",
                                         "--vm-append",
                                         "rdinit=/bin/busybox -- sleep 3600",
                                         "-n",
                                         "1",
                                         "-w",
                                         "command",
                                         "--workload-cmd",
                                         "true",
                                         "--workdir",
                                         shared_workdir(),
                                         "--results",
                                         results,
                                         "no_load"},
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

TEST_CASE("run --kernel: the guests get the options as given, but the host's own", "[vm]") {
    CommandLine cl;
    cl.name = "run";
    cl.accepts_config = true;
    bool flag = false, other = false;
    std::string latency, label;
    std::vector<std::string> loads;
    cl.options.add_options()("flag", po::bool_switch(&flag), "")(
        "other", po::bool_switch(&other), "")("latency",
                                              po::value(&latency)->implicit_value("cyclic"),
                                              "")("label", po::value(&label), "")(
        "cmd", po::value<std::string>(), "")("load", po::value(&loads), "");
    cl.positional.add("load", -1);
    test::ScratchDir dir("given-options");
    std::ofstream(dir / "c.conf") << "other = false\ncmd = from the file\nflag = true\n";
    const std::string config = (dir / "c.conf").string();
    std::vector<std::string> words = {"run",      "--latency", "--label", "x",     "--flag",
                                      "--config", config,      "no_load", "--cmd", "make -j2"};
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    po::variables_map vm;
    REQUIRE(parse_command_line(cl, static_cast<int>(argv.size()), argv.data(), vm));
    const auto given = given_options(cl, static_cast<int>(argv.size()), argv.data(), vm,
                                     {"label", "config", "load"});
    // The command line's first (its --cmd wins over the file's), a bare
    // implicit value stays bare, a false switch of the file is left out.
    CHECK(given == std::vector<std::string>{"--latency", "--flag", "--cmd=make -j2"});
}

TEST_CASE("run --kernel --runs auto: rounds stop as a --vary run's do, the reason in every file",
          "[vm][e2e]") {
    const std::string package = kernel_package();
    REQUIRE_FALSE(package.empty());
    test::ScratchDir dir("vm-auto");
    // A budget the first round already spends: one boot of each kernel.
    auto o = test::run_contest_binary({"run",
                                       "--kernel",
                                       "a=" + package,
                                       "--kernel",
                                       "b=" + package,
                                       "--vm-accel",
                                       "tcg",
                                       "--runs",
                                       "auto",
                                       "--budget",
                                       "1s",
                                       "-w",
                                       "command",
                                       "--workload-cmd",
                                       "true",
                                       "--workdir",
                                       shared_workdir(),
                                       "--results",
                                       (dir / "results").string(),
                                       "-q",
                                       "no_load"},
                                      dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK_THAT(o.err, Catch::Contains("--runs auto stopped"));
    for (const std::string label : {"a", "b"}) {
        auto files = files_of(dir / "results", label);
        REQUIRE(files.size() == 1);
        CHECK(files.front().runs.size() == 1);
        CHECK_THAT(files.front().stopped_because, Catch::Contains("--budget 1s"));
    }
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "run_guest: a guest that says it is done and then hangs is stopped a grace later, not at its "
    "timeout; the tick knows it is up",
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
                  "; busybox sleep 2; echo " + kGuestDoneLine + "; busybox sleep 3600\"";
    boot.boot_timeout_s = 400;
    boot.timeout_s = 500;
    bool ticked_up = false, ticked_booting = false;
    const GuestOutcome o =
        run_guest(boot, [&](double, bool up) { (up ? ticked_up : ticked_booting) = true; });
    INFO(o.failure << "; console: " << console_tail(boot.console_log, 4));
    CHECK(o.came_up);
    CHECK(o.finished);
    CHECK_FALSE(o.timed_out);
    // Up, 2 s, done, then the grace: far from the 500 s timeout.
    CHECK(o.total_s - o.up_s < 60);
    CHECK(ticked_booting);
    CHECK(ticked_up);
    CHECK(test::leftover_processes().empty());
}

namespace {

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

}  // namespace

TEST_CASE(
    "run --kernel: a workdir with commas, a guest that plants links and a FIFO on its results "
    "share; its results come back",
    "[vm][e2e][vm-share]") {
    REQUIRE_FALSE(kernel_package().empty());
    test::ScratchDir dir("vm-share");
    // Pasted into -drive as it is, this made /dev/null the guest's disk.
    const fs::path workdir = dir / "w,file=/dev/null,";
    const fs::path results = dir / "results";
    // The guests' root plants links to the host's secrets and a FIFO where
    // the host reads: its log and its results (k's folder, for both).
    const std::string plant =
        "mkdir -p /mnt/out/results/k; ln -sf /etc/shadow /mnt/out/guest.log; "
        "ln -sf /etc/shadow /mnt/out/results/k/a-link.json; "
        "mkfifo /mnt/out/results/k/b-fifo.json 2>/dev/null; true";
    auto o = test::run_contest_binary(
        {"run", "--kernel", "k=" + kernel_deb_or_package(), "--kernel",
         "j=" + kernel_deb_or_package(), "--vm-accel", "tcg", "--vm-timeout", "900",
         // A kernel with no way to power off:
         // its init reboots instead.
         "--vm-append", "acpi=off noapic", "-n", "1", "-w", "command", "--workload-cmd",
         "sh -c '" + plant + "'", "--workdir", workdir.string(), "--results", results.string(),
         "-q", "no_load"},
        dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    for (const std::string label : {"k", "j"}) {
        auto files = files_of(results, label);
        REQUIRE(files.size() == 1);
        REQUIRE(files.front().runs.size() == 1);
        CHECK(files.front().runs.front().ok());
    }
    // On the host the last guest's links and FIFO are plain files (the share keeps
    // them as metadata), in the run's share.
    std::vector<fs::path> shares;
    for (const auto& e : fs::directory_iterator(workdir / "vm"))
        if (e.path().filename().string().starts_with("run-")) shares.push_back(e.path() / "out");
    REQUIRE(shares.size() == 1);
    for (const fs::path& planted : {shares[0] / "guest.log", shares[0] / "results/k/a-link.json",
                                    shares[0] / "results/k/b-fifo.json"}) {
        INFO(planted);
        CHECK(fs::is_regular_file(fs::symlink_status(planted)));
    }
    CHECK(test::leftover_processes().empty());
}
