#include "contest/run/places/guests/kernel_guests.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "contest/run/places/delegated_turn.h"
#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"
#include "contest/sys/own_binary.h"
#include "contest/sys/process.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/unique_fd.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// Where the guest sees the scratch disk (on /mnt, which Debian always has
// and leaves empty) and the results share; its TMPDIR is on the disk too.
const std::string kGuestScratch = "/mnt";
const std::string kGuestBinary = kGuestScratch + "/contest-bin/contest";
const std::string kGuestWorkdir = kGuestScratch + "/work";
const std::string kGuestResults = kGuestScratch + "/out/results";
// The turn's journal, in the share the guest sees at /mnt/out.
const std::string kGuestJournalName = std::string("turn") + kJournalExtension;
const std::string kGuestJournal = kGuestScratch + "/out/" + kGuestJournalName;

// vm/run-<pid> of contests that are gone: a killed run's disk and shares.
void remove_dead_runs_folders(const Workdir& workdir) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(workdir.real_dir("vm"), ec)) {
        const std::string name = e.path().filename().string();
        if (!name.starts_with("run-")) continue;
        char* end = nullptr;
        const long pid = std::strtol(name.c_str() + 4, &end, 10);
        if (pid > 0 && *end == '\0' && contest_gone(static_cast<pid_t>(pid)))
            workdir.remove_tree("vm/" + name);
    }
}

}  // namespace

std::string guest_log_tail(const fs::path& out, int lines) {
    // tail_of_file follows no link and waits on no FIFO.
    return console_tail(out / "guest.log", lines);
}

KernelGuests::~KernelGuests() {
    // The disk image, the seed and the binary's copy are big; the consoles
    // and the shares stay until the next run, for a look after a failure.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder_, ec))
        if (const std::string name = e.path().filename().string();
            name.starts_with("disk") && name.ends_with(".img"))
            fs::remove(e.path(), ec);
    fs::remove(folder_ / "contest", ec);
    workdir_.remove_tree(run_folder_ + "/seed");
}

KernelGuests::KernelGuests(const RunConfig& config, std::vector<LabelRun>& labels,
                           Progress& progress)
    : config_(config),
      workdir_(Workdir::opened_or_open(config.workload.opened_workdir, config.workload.workdir)) {
    workdir_.make_dir("vm/cache");
    remove_dead_runs_folders(workdir_);
    run_folder_ = "vm/run-" + std::to_string(::getpid());
    workdir_.remove_tree(run_folder_);
    workdir_.make_dir(run_folder_);
    folder_ = workdir_.real_dir(run_folder_);
    qemu_binary();
    std::error_code ec;
    if (!fs::is_directory(kGuestScratch, ec))
        throw EnvironmentError("the guests mount their scratch disk on " + kGuestScratch +
                               ", which this host's root lacks: create it (an empty folder)");
    // Copied once, for every round: the binary file may be rebuilt meanwhile.
    copy_own_binary(folder_ / "contest");
    for (auto& label : labels) prepare_kernel(label, progress);
    const LabelKernel& first = *labels.front().kernel;
    accel_ = choose_accel(config.vm.accel, first.resolved, first.initramfs, folder_, progress);
    if (emulated())
        progress.note(
            "contest: the guests run under TCG, software emulation: every time "
            "measured is EMULATED, not the hardware's");
}

void KernelGuests::prepare_kernel(LabelRun& label, Progress& progress) {
    LabelKernel& kernel = *label.kernel;
    kernel.resolved = resolve_kernel_image(kernel.image, workdir_.real_dir("vm/cache"), progress);
    kernel.initramfs =
        build_initramfs(kernel.resolved, folder_ / ("initramfs-" + label.label + ".cpio"));
    if (kernel.resolved.modules_folder.empty())
        progress.note("contest: --kernel " + label.label + ": no lib/modules/" +
                      kernel.resolved.release +
                      "/ for it: everything the guest needs is taken as built in");
    else if (!kernel.initramfs.assumed_builtin.empty() && kernel.resolved.builtin.empty())
        progress.note("contest: --kernel " + label.label + ": no module found for " +
                      join(kernel.initramfs.assumed_builtin, ", ") +
                      ": taken as built into the kernel");
}

nlohmann::json KernelGuests::vm_record() const {
    nlohmann::json j = {{"engine", "qemu"},
                        {"accel", accel_name(accel_.accel)},
                        {"emulated", emulated()},
                        {"cpus", config_.vm.shape.cpus},
                        {"memory_mib", config_.vm.shape.memory_mib},
                        {"disk_mib", config_.vm.disk_mib},
                        {"append", config_.vm.append},
                        {"boot_timeout_s", config_.vm.boot_timeout_s},
                        {"timeout_s", config_.vm.timeout_s},
                        {"runs_per_boot", config_.vm.runs_in_each_boot()}};
    if (!accel_.why_not_kvm.empty()) j["why_not_kvm"] = valid_utf8(accel_.why_not_kvm);
    if (emulated())
        j["note"] =
            "EMULATED: the guests ran under TCG, QEMU's software emulation; the times compare "
            "the kernels' code paths on an emulated machine, not on real hardware";
    return j;
}

nlohmann::json KernelGuests::kernel_record(const LabelRun& label) {
    nlohmann::json j = label.kernel->resolved.fingerprint();
    j["label"] = label.label;
    j["modules_loaded"] = label.kernel->initramfs.modules;
    if (!label.kernel->build.is_null()) j["build"] = label.kernel->build;
    return j;
}

void KernelGuests::make_scratch_disk(const KernelImage& kernel, const fs::path& disk) {
    workdir_.remove_tree(run_folder_ + "/seed");
    workdir_.make_dir(run_folder_ + "/seed/contest-bin");
    workdir_.make_dir(run_folder_ + "/seed/work");
    workdir_.make_dir(run_folder_ + "/seed/tmp");
    const fs::path seed = folder_ / "seed";
    fs::permissions(seed / "tmp", fs::perms::all | fs::perms::sticky_bit);
    fs::copy_file(folder_ / "contest", seed / "contest-bin/contest",
                  fs::copy_options::overwrite_existing);
    // The guest's /boot: its own kernel's config, where contest's facts look.
    if (!kernel.config_text.empty()) {
        workdir_.make_dir(run_folder_ + "/seed/boot");
        std::ofstream(seed / "boot" / ("config-" + kernel.release)) << kernel.config_text;
    }
    std::error_code ec;
    fs::remove(disk, ec);
    create_file_no_follow(disk);
    fs::resize_file(disk, static_cast<std::uintmax_t>(config_.vm.disk_mib) << 20, ec);
    if (ec)
        throw EnvironmentError("cannot size the scratch disk " + disk.string() + ": " +
                               ec.message());
    SpawnOptions so;
    so.log_to(folder_ / "mkfs.log");
    run_checked({"mkfs.ext4", "-q", "-F", "-L", "contest", "-d", seed.string(), disk.string()}, so,
                "making the guest's scratch disk (mkfs.ext4)");
}

std::string KernelGuests::guest_argv() const {
    const char* path = std::getenv("PATH");
    std::vector<std::string> argv = {
        "env",
        "-i",
        "HOME=" + kGuestScratch,
        "TMPDIR=" + kGuestScratch + "/tmp",
        std::string("PATH=") + (path ? path : "/usr/sbin:/usr/bin:/sbin:/bin"),
        kGuestBinary};
    for (auto& word : delegated_run_words(kGuestJournal)) argv.push_back(std::move(word));
    std::string text;
    for (const auto& word : argv) text += word + '\0';
    return text;
}

GuestTurn KernelGuests::prepare_turn(const LabelRun& label_run, unsigned round,
                                     const std::vector<std::string>& loads, std::uint64_t seed,
                                     const std::string& slot, Progress& progress) {
    const std::string& label = label_run.label;
    const LabelKernel& kernel = *label_run.kernel;
    GuestTurn got;
    got.head = "[" + label + "] round " + std::to_string(round);
    progress.status(got.head + "  making the scratch disk");
    const fs::path disk = folder_ / ("disk" + slot + ".img");
    make_scratch_disk(kernel.resolved, disk);
    const std::string out_folder = run_folder_ + "/out" + slot;
    workdir_.remove_tree(out_folder);
    workdir_.make_dir(out_folder);
    got.out = workdir_.real_dir(out_folder);
    got.turn =
        DelegatedTurn{label, round, loads, seed, kGuestWorkdir, kGuestResults, config_.delegated,
                      // A guest in a slot is one of a duet's.
                      slot.empty() ? "" : kGuestScratch + "/out", config_.vm.runs_in_each_boot()};
    write_run_journal(got.out / kGuestJournalName, delegated_turn_journal(got.turn));
    std::ofstream(got.out / "argv", std::ios::binary) << guest_argv();

    GuestBoot& boot = got.boot;
    boot.kernel = kernel.resolved.image;
    boot.initramfs = kernel.initramfs.path;
    boot.scratch_disk = disk;
    boot.out_dir = got.out;
    boot.console_log = folder_ / ("console-" + label + "-" + std::to_string(round) + ".log");
    boot.accel = accel_.accel;
    boot.shape = config_.vm.shape;
    // The label's own parameters after every guest's: the later word wins.
    boot.append = config_.vm.append;
    if (const std::string own = config_.append_of(label); !own.empty())
        boot.append += (boot.append.empty() ? "" : " ") + own;
    boot.boot_timeout_s = config_.vm.boot_timeout_s;
    boot.timeout_s = config_.vm.life_bound_s();
    boot.timeout_words = config_.vm.life_bound_words();
    return got;
}

GuestRound KernelGuests::brought_back(const GuestTurn& guest, const GuestOutcome& o) {
    const std::string& label = guest.turn.label;
    GuestRound got;
    got.up_s = o.up_s;
    got.total_s = o.total_s;
    ResultBroughtBack read = read_result_brought_back(guest.out / "results");
    got.result = std::move(read.result);
    std::string why;
    if (!o.finished) {
        const std::string tail = console_tail(guest.boot.console_log, 6);
        why = "guest of kernel " + label + ": " + o.failure + "; the last lines of its console (" +
              guest.boot.console_log.string() + "): " + (tail.empty() ? "(nothing yet)" : tail);
    } else if (!got.result) {
        why = "guest of kernel " + label + " left no result file contest could read (" +
              read.problem + "); its contest's last lines: " + guest_log_tail(guest.out, 6);
    }
    got.failure = why;
    got.runs = runs_brought_back(guest.turn, got.result, why, RunStatus::guest_failed,
                                 "guest of kernel " + label,
                                 "; its contest's last lines: " + guest_log_tail(guest.out, 6));
    return got;
}

GuestRound KernelGuests::run_round(const LabelRun& label, unsigned round,
                                   const std::vector<std::string>& loads, std::uint64_t seed,
                                   Progress& progress) {
    const GuestTurn guest = prepare_turn(label, round, loads, seed, "", progress);
    const GuestOutcome o = run_guest(guest.boot, [&](double s, bool up) {
        progress.tick(guest.head + (up ? "  running" : "  booting") + "  " + seconds_text(s));
    });
    return brought_back(guest, o);
}

}  // namespace contest
