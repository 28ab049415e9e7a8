// deploy/ansible's boot rounds played for real (issue 44): every host of the
// inventory is a TCG guest whose PID 1 is the host's own systemd
// (InitMode::systemd_machine), reached by the controller over SSH through
// QEMU's user network (GuestBoot::ssh_forward_port, an sshd of the test's
// own in the guest), and rebooted by its contest's unit through its turns
// by kexec: the controller's SSH connections break at every boot, which the
// role's boot_poll.yml rides out (unreachable, then wait_for_connection).
// Two hosts take both labels x 2 rounds and end done; on the third one
// label's kernel panics and hangs (panic=0, no init to run), so that host
// never answers again: the play gives up on it after its bound and names it
// with its last status, fetches the others' files, and `contest compare
// --over-hosts` gives each host's verdict and the one over the hosts. fleet-a
// also follows a branch from contest's unit (contest_track_mode=timer): the
// play starts the unit once, and its points are read after the play.
// Hidden (not in `make test`): the play takes a quarter of an hour and more.
// Needs openssh-server on this machine (its sshd is what the guests run; it
// is not started here).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "contest/boot/boot_state.h"
#include "contest/result/result_file.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/process.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"
#include "contest/sys/unique_fd.h"
#include "contest/vm/guest.h"
#include "contest/vm/initramfs.h"
#include "contest/vm/kernel_image.h"
#include "systemd_guest.h"
#include "test_helpers.h"
#include "test_skip.h"
#include "track_guest.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

void write_guest_file(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick):
// QEMU binds it a moment later.
unsigned free_loopback_port() {
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    REQUIRE(fd.get() >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    socklen_t len = sizeof addr;
    REQUIRE(::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    return ntohs(addr.sin_port);
}

// The guest's network and SSH server, as units the systemd machine's init
// installs from the share's units/ at every boot (so every kexec'd kernel
// comes back reachable): eth0 (net.ifnames=0 on the command line keeps the
// name) on QEMU's user network, and an sshd of this machine's
// openssh-server with a configuration of the test's own: the controller's
// key from the share, no PAM (no login session to set up in the guest), a
// host key made on the guest's overlay at its first boot (kept on the
// scratch disk, the same in every boot), sftp for Ansible's fetch.
void put_network_and_sshd(const fs::path& share, const std::string& public_key) {
    write_guest_file(share / "authorized_keys", public_key);
    write_guest_file(share / "net.sh",
                     "i=0\n"
                     "while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 300 ]; do sleep 0.2; "
                     "i=$((i + 1)); done\n"
                     "ip link set lo up && ip link set eth0 up &&\n"
                     "  ip addr replace 10.0.2.15/24 dev eth0 &&\n"
                     "  ip route replace default via 10.0.2.2\n");
    write_guest_file(share / "units/contest-fleet-net.service",
                     "[Unit]\nDescription=contest fleet demo: eth0 on QEMU's user network\n"
                     "Before=network.target contest-fleet-sshd.service\n"
                     "[Service]\nType=oneshot\nRemainAfterExit=yes\n"
                     "ExecStart=/bin/sh /mnt/out/net.sh\n");
    write_guest_file(share / "sshd_config",
                     "Port 22\nHostKey /etc/contest-fleet/ssh_host_ed25519_key\n"
                     "PermitRootLogin prohibit-password\n"
                     "AuthorizedKeysFile /mnt/out/authorized_keys\nStrictModes no\n"
                     "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
                     "Subsystem sftp /usr/lib/openssh/sftp-server\n");
    write_guest_file(share / "units/contest-fleet-sshd.service",
                     "[Unit]\nDescription=contest fleet demo: sshd for the controller\n"
                     "Wants=contest-fleet-net.service\nAfter=contest-fleet-net.service\n"
                     "[Service]\nType=exec\nRuntimeDirectory=sshd\n"
                     // The guest's root is the host's, and bash run by sshd
                     // reads its ~/.bashrc: this machine's runs `pyenv init`,
                     // whose rehash takes a lock file in ~/.pyenv/shims; a
                     // kexec in mid-rehash left it on the overlay, and every
                     // later login waited on it for minutes. Empty in the
                     // guest (its overlay), the host's untouched.
                     "ExecStartPre=/bin/sh -c ': > /root/.bashrc'\n"
                     "ExecStartPre=/bin/sh -c 'test -f /etc/contest-fleet/ssh_host_ed25519_key "
                     "|| { mkdir -p /etc/contest-fleet && ssh-keygen -q -t ed25519 -N \"\" -f "
                     "/etc/contest-fleet/ssh_host_ed25519_key; }'\n"
                     "ExecStart=/usr/sbin/sshd -D -e -f /mnt/out/sshd_config\n");
}

// fleet-a also follows a branch from its unit (contest_track_mode=timer):
// the package's files and the robot's clone are put on its root by a unit
// of the share's at its first boot (tests/track_guest.h), as the package and
// the role's clone would be.
void put_track_host(const fs::path& share) {
    test::put_track_machine(share);
    write_guest_file(share / "units/contest-fleet-track-tree.service",
                     "[Unit]\nDescription=contest fleet demo: the package and the robot's clone\n"
                     "ConditionPathExists=!/srv/contest/linux\n"
                     "Before=contest-fleet-sshd.service\n"
                     "[Service]\nType=oneshot\nExecStart=/bin/sh /mnt/out/track-machine.sh\n");
}

// The guest was told to stop (tick): run_guest's guard stops QEMU on the way out.
struct GuestStopped {};

// One host of the fleet: its guest, and what it is to do.
struct FleetGuest {
    std::string name;
    GuestBoot boot;
    std::string broken_append;  // label b's extra kernel parameters, when its kernel is broken
    unsigned bound_s = 0;       // contest_boot_timeout_s
    std::unique_ptr<test::ConsoleClock> clock;
    std::atomic<bool> stop{false};
    std::atomic<double> panic_at_s{-1};
    // Set when QEMU ended by itself (a guest powered off or crashed), not
    // stopped by the test: none should.
    std::optional<GuestOutcome> ended_by_itself;
    std::exception_ptr error;
    std::thread thread;
};

// Runs a guest until it is told to stop, or until its kernel panics: a
// panicked kernel under panic=0 spins (a host CPU under TCG) and never
// answers again, so it is switched off, as a lab's power switch would.
void run_fleet_guest(FleetGuest& g) {
    try {
        g.ended_by_itself = run_guest(g.boot, [&](double now, bool) {
            g.clock->tick(now);
            for (const auto& e : g.clock->events())
                if (e.what == "panic" && g.panic_at_s < 0) g.panic_at_s = e.at_s;
            if (g.stop || g.panic_at_s >= 0) throw GuestStopped{};
        });
    } catch (const GuestStopped&) {
    } catch (...) {
        g.error = std::current_exception();
    }
}

std::string ssh_words(const fs::path& key, unsigned port) {
    return "ssh -i " + key.string() +
           " -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
           "-o LogLevel=ERROR -o ConnectTimeout=10 -p " +
           std::to_string(port) + " root@127.0.0.1";
}

// Whether the guest answers over SSH within timeout_s (its first boot).
bool answers_within(const fs::path& key, const FleetGuest& g, double timeout_s) {
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
           timeout_s) {
        if (test::shell_output(ssh_words(key, *g.boot.ssh_forward_port) +
                               " true >/dev/null 2>&1 && echo yes") == "yes")
            return true;
        std::this_thread::sleep_for(std::chrono::seconds(5));
    }
    return false;
}

// The boot state a host's contest left on its overlay, read off the scratch
// disk's upper layer once QEMU has ended (the ext4 journal replayed first:
// a guest stopped mid-way leaves one).
std::optional<BootRunFile> state_off_disk(const fs::path& disk, const fs::path& to) {
    test::shell_output("e2fsck -fy " + disk.string() + " >/dev/null 2>&1");
    test::shell_output("debugfs -R 'dump /upper/var/lib/contest-fleet/boot-results/demo/" +
                       std::string(kRunJournalName) + " " + to.string() + "' " + disk.string() +
                       " 2>/dev/null");
    if (!fs::exists(to) || fs::file_size(to) == 0) return std::nullopt;
    return boot_run_from_journal_text(test::slurp(to), to.string());
}

// Whether a line of text matches pattern (line by line: the play's log is
// too long for one std::regex over all of it).
bool has_line_matching(const std::string& text, const std::string& pattern) {
    const std::regex re(pattern);
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (std::regex_search(line, re)) return true;
    return false;
}

// Seconds between two of the state's UTC times ("2026-05-03T09:00:00Z").
double seconds_between(const std::string& from, const std::string& to) {
    auto seconds_of = [](const std::string& at) {
        std::tm tm{};
        std::istringstream in(at);
        in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
        return static_cast<double>(timegm(&tm));
    };
    return seconds_of(to) - seconds_of(from);
}

}  // namespace

TEST_CASE(
    "deploy/ansible's boot rounds over three TCG guests reached by SSH: two end done with their "
    "files fetched, the one whose kernel panics is named with its last status, and the report "
    "over the hosts is made",
    "[.fleet-demo]") {
    if (!fs::exists("/usr/sbin/sshd"))
        CONTEST_SKIP(
            "no /usr/sbin/sshd: the guests run this machine's; apt-get install openssh-server "
            "(the demo alone needs it)");
    for (const char* program : {"ansible-playbook", "ssh", "ssh-keygen", "debugfs", "e2fsck"})
        test::require_program(program);
    REQUIRE_FALSE(test::debian_kernel_package().empty());
    REQUIRE(fs::exists("/lib/systemd/systemd"));
    REQUIRE(fs::exists("/usr/bin/python3"));

    test::ScratchDir dir("fleet-demo", test::scratch_kept_at_boot());
    const test::SystemdMachineImages images("fleet-demo-images");
    const KernelImage& kernel = images.kernel;
    const Initramfs& initramfs = images.initramfs;
    REQUIRE(std::find(initramfs.modules.begin(), initramfs.modules.end(), "virtio_net") !=
            initramfs.modules.end());
    const fs::path key = dir / "id_ed25519";
    REQUIRE(test::shell_output("ssh-keygen -q -t ed25519 -N '' -C contest-fleet-demo -f " +
                               key.string() + " && echo made") == "made");
    const std::string public_key = test::slurp(fs::path(key.string() + ".pub"));

    // The command line every boot inherits (contest boots each label with
    // the running one): the host's own units masked, eth0 kept as eth0,
    // each guest its own hostname (the report tells hosts apart by it).
    std::string append = "systemd.unit=multi-user.target systemd.show_status=1 net.ifnames=0";
    for (const auto& unit : test::units_to_mask()) append += " systemd.mask=" + unit;
    std::vector<std::unique_ptr<FleetGuest>> guests;
    for (const std::string name : {"fleet-a", "fleet-b", "fleet-c"}) {
        auto g = std::make_unique<FleetGuest>();
        g->name = name;
        const fs::path home = dir / name, share = home / "out";
        fs::create_directories(share);
        const fs::path disk = home / "disk.img";
        REQUIRE(test::shell_output("truncate -s 1G " + disk.string() + " && mkfs.ext4 -q -F " +
                                   disk.string() + " && echo made") == "made");
        put_network_and_sshd(share, public_key);
        if (name == "fleet-a") put_track_host(share);
        g->boot.kernel = kernel.image;
        g->boot.initramfs = initramfs.path;
        g->boot.scratch_disk = disk;
        g->boot.out_dir = share;
        g->boot.console_log = home / "console.log";
        g->boot.accel = Accel::tcg;
        // One vCPU each: three guests share this machine's 2 CPUs.
        g->boot.shape = {1, 1024};
        g->boot.reboot_resets = true;
        g->boot.boot_timeout_s = 600;
        g->boot.timeout_s = 3 * 3600;
        g->boot.append = append + " systemd.hostname=" + name;
        g->boot.ssh_forward_port = free_loopback_port();
        g->clock = std::make_unique<test::ConsoleClock>(
            g->boot.console_log, std::vector<std::pair<std::string, std::string>>{
                                     {"Started contest-fleet-sshd", "sshd started"},
                                     {"Starting contest-boot", "contest's unit starts"}});
        g->bound_s = 3000;
        guests.push_back(std::move(g));
    }
    // fleet-c's label b: a kernel that panics (no init where rdinit= says,
    // no root= to fall back on) and, under panic=0, never reboots.
    guests[2]->broken_append = "panic=0 rdinit=/contest-fleet-demo-no-such-init";
    // Its broken turn is one of its first two; the others end, by
    // themselves, whatever its bound.
    guests[2]->bound_s = 600;
    for (auto& g : guests) g->thread = std::thread(run_fleet_guest, std::ref(*g));
    // Every path out of here stops the guests and waits for them.
    struct StopGuests {
        std::vector<std::unique_ptr<FleetGuest>>& guests;
        void now() {
            for (auto& g : guests) g->stop = true;
            for (auto& g : guests)
                if (g->thread.joinable()) g->thread.join();
        }
        ~StopGuests() { now(); }
    } stop_guests{guests};

    const auto started = std::chrono::steady_clock::now();
    auto since_start = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    std::map<std::string, double> answered_at;
    std::map<std::string, std::optional<BootRunFile>> states;
    for (auto& g : guests) {
        INFO(g->name << ": " << console_tail(g->boot.console_log, 30));
        REQUIRE(answers_within(key, *g, 900));
        answered_at[g->name] = since_start();
    }

    // The inventory: each guest behind its forwarded port; a workload of
    // 10 s, so that a turn's boot stays up long enough for the controller
    // to read it (with `true`, a turn's boot was gone again before an SSH
    // login under emulation had finished); the same two
    // labels on every host (the same image under two command lines), the
    // third host's b broken. ServerAliveInterval: a connection open when a
    // host kexecs is never answered again (the guest's TCP is gone with no
    // reset), and must end instead of waiting for ever.
    const std::string image = images.boot_kernel();
    std::ostringstream inventory;
    inventory << "fleet:\n  hosts:\n";
    for (const auto& g : guests) {
        inventory << "    " << g->name << ":\n"
                  << "      ansible_host: 127.0.0.1\n"
                  << "      ansible_port: " << *g->boot.ssh_forward_port << "\n"
                  << "      ansible_user: root\n"
                  << "      ansible_ssh_private_key_file: " << key.string() << "\n"
                  << "      ansible_ssh_common_args: >-\n"
                  << "        -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null\n"
                  << "        -o ServerAliveInterval=5 -o ServerAliveCountMax=3\n"
                  << "      ansible_python_interpreter: /usr/bin/python3\n"
                  << "      contest_boot_timeout_s: " << g->bound_s << "\n"
                  << "      contest_b_append: \"contest_label=b"
                  << (g->broken_append.empty() ? "" : " " + g->broken_append) << "\"\n";
        if (g->name == "fleet-a")
            inventory << "      contest_track: true\n"
                      << "      contest_track_mode: timer\n"
                      << "      contest_track_tree: /srv/contest/linux\n"
                      << "      contest_track_branch: main\n"
                      << "      contest_track_from: t0\n"
                      << "      contest_track_options: --runs 1 --measure time:no_load\n"
                      << "      contest_track_args: >-\n"
                      << "        --vm-accel tcg --vm-cpus 1 --vm-disk 64 -w command\n"
                      << "        --workload-cmd true --warmup 0 --timeline-hz 0\n"
                      << "        --no-drop-caches no_load\n";
    }
    write_guest_file(dir / "inventory.yml", inventory.str());
    const fs::path controller = dir / "controller";
    write_guest_file(
        dir / "vars.json",
        "{\n"
        "  \"contest_source_dir\": \"" CONTEST_SOURCE_DIR
        "\",\n"
        "  \"contest_controller_binary\": \"" CONTEST_BINARY
        "\",\n"
        // Each host runs the binary under test from its root (the host's, read-only):
        // nothing installed or built on it.
        "  \"contest_binary\": \"" CONTEST_BINARY
        "\",\n"
        "  \"contest_install_packages\": false,\n"
        "  \"contest_extra_packages\": [],\n"
        "  \"contest_become\": false,\n"
        "  \"contest_boot\": true,\n"
        "  \"contest_boot_poll_s\": 10,\n"
        // The play's folder, named (on the hosts and the controller).
        "  \"contest_play_id\": \"demo\",\n"
        "  \"contest_args\": \"--boot a=" +
            image + " --boot b=" + image +
            " --boot-append a=contest_label=a --boot-append 'b={{ contest_b_append }}' "
            "-n 2 -w command --workload-cmd 'sleep 10' --warmup 0 --timeline-hz 0 "
            "no_load\",\n"
            "  \"contest_results_dir\": \"" +
            (controller / "results").string() +
            "\",\n"
            "  \"contest_summaries_dir\": \"" +
            (controller / "summaries").string() +
            "\",\n"
            "  \"contest_report_file\": \"" +
            (controller / "report.txt").string() +
            "\",\n"
            "  \"contest_controller_cache_dir\": \"" +
            (controller / "cache").string() + "\"\n}\n");
    // Ansible's own state in the scratch folder, its log timed; its SSH
    // masters' sockets in a short folder of their own (a socket's path is
    // at most 107 bytes).
    const test::ScratchDir sockets("fleet-ssh");
    fs::create_directories(dir / "ansible");
    write_guest_file(dir / "ansible.cfg", "");
    SpawnOptions play_options;
    play_options.cwd = dir.path();
    play_options.env_overrides = {"ANSIBLE_CONFIG=" + (dir / "ansible.cfg").string(),
                                  "ANSIBLE_LOCAL_TEMP=" + (dir / "ansible/local").string(),
                                  "ANSIBLE_SSH_CONTROL_PATH_DIR=" + sockets.path().string(),
                                  "ANSIBLE_LOG_PATH=" + (dir / "ansible.log").string(),
                                  "ANSIBLE_NOCOLOR=1",
                                  "ANSIBLE_HOST_KEY_CHECKING=False",
                                  "ANSIBLE_RETRY_FILES_ENABLED=False",
                                  "ANSIBLE_TIMEOUT=30"};
    play_options.log_to(dir / "play.log");
    const double play_start = since_start();
    // In a process group the guard stops on every way out (a failed
    // REQUIRE, Ctrl-C or SIGTERM of the test: Interrupted from the sleep).
    GroupGuard playbook(spawn({"ansible-playbook", "-i", "inventory.yml",
                               CONTEST_SOURCE_DIR "/deploy/ansible/site.yml", "-e", "@vars.json"},
                              play_options));
    std::optional<int> play_status;
    while (!(play_status = reap_if_exited(playbook.pgid()))) interruptible_sleep(1);
    playbook.release();
    const std::string play_exit = WIFEXITED(*play_status)
                                      ? std::to_string(WEXITSTATUS(*play_status))
                                      : describe_wait_status(*play_status);
    const double play_s = since_start() - play_start;
    const std::string play = test::slurp(dir / "play.log");
    // fleet-a's track unit, which the play started once (not waited for):
    // its end waited for here, and what it left read.
    const std::string track_unit = test::shell_output(
        ssh_words(key, *guests[0]->boot.ssh_forward_port) +
        " 'u=contest-track@main.service; i=0; while [ $i -lt 120 ] && { [ \"$(systemctl show -p "
        "ActiveState --value $u)\" = activating ] || systemctl list-jobs --no-legend | grep -q "
        "$u; }; do sleep 5; i=$((i + 1)); done; systemctl show -p "
        "Result,ExecMainStatus,ExecMainStartTimestampMonotonic $u; systemctl is-active "
        "contest-track@main.timer; git -C /srv/contest/linux rev-parse origin/main; git -C "
        "/srv/upstream rev-parse t1; " CONTEST_BINARY
        " track --status --results /var/lib/contest/track/main' 2>&1");
    stop_guests.now();
    for (auto& g : guests)
        if (g->error) std::rethrow_exception(g->error);

    const std::string over =
        test::shell_output(std::string(CONTEST_BINARY) + " compare --over-hosts --results " +
                           (controller / "results" / "demo").string() + " a b 2>&1");
    // What the play took, per host: the boots the state recorded, the
    // console's steps, and what the report said.
    for (auto& g : guests) {
        std::ostringstream figures;
        figures << g->name << ": answering over SSH " << answered_at[g->name]
                << " s after QEMU's start\n";
        const auto& run = states[g->name] =
            state_off_disk(g->boot.scratch_disk, dir / (g->name + "-state.json"));
        if (run) {
            const BootState* state = &run->state;
            figures << "  state " << boot_phase_name(state->phase) << ", started "
                    << state->started_at << "\n";
            std::string previous = state->started_at;
            for (const auto& b : state->boots) {
                figures << "  boot for " << b.expected << " read at " << b.at << " (+"
                        << seconds_between(previous, b.at) << " s; up " << b.up_s
                        << " s): " << b.outcome << "\n";
                previous = b.at;
            }
            for (const auto& t : run->turns.list)
                figures << "  turn round " << t.round << " " << state->labels[t.label].label << ": "
                        << turn_status_name(t.status) << "\n";
        }
        for (const auto& e : g->clock->events())
            figures << "  " << e.at_s << " s  " << e.what << "\n";
        WARN(figures.str());
    }
    // The logs kept past the scratch folder, for a look afterwards.
    const fs::path last = test::vm_test_workdir() / "fleet-demo-last";
    fs::remove_all(last);
    fs::create_directories(last);
    for (const char* log : {"play.log", "ansible.log", "inventory.yml", "vars.json"})
        fs::copy_file(dir / log, last / log);
    for (const auto& g : guests) {
        fs::copy_file(g->boot.console_log, last / (g->name + "-console.log"));
        if (fs::exists(dir / (g->name + "-state.json")))
            fs::copy_file(dir / (g->name + "-state.json"), last / (g->name + "-state.json"));
    }
    write_guest_file(last / "over-hosts.txt", over);
    WARN("the logs: " << last.string());
    WARN("the play: " << play_s << " s, exit " << play_exit);
    WARN(test::slurp(dir / "ansible.log"));
    WARN("contest compare --over-hosts a b:\n" << over);
    WARN("fleet-a's track unit:\n" << track_unit);

    INFO("ansible-playbook exited " << play_exit << " after " << play_s
                                    << " s; its output: " << (last / "play.log").string());
    for (const auto& g : guests) {
        INFO(g->name << ": " << (g->ended_by_itself ? g->ended_by_itself->failure : ""));
        CHECK_FALSE(g->ended_by_itself.has_value());
    }
    // The play fails (a host did not finish), after the others' report.
    CHECK(play_exit == "2");
    CHECK_THAT(play, Catch::Contains("contest did not finish on: fleet-c\""));
    CHECK(has_line_matching(play,
                            "\"fleet-c: failed at [^\"]*did not end within 600 s; its "
                            "last status: (boot run [^ ]*: running|started; no status read "
                            "since)"));
    // Its status read before the panic (running), or its first turn's
    // kernel the one that panicked before it answered again (started).
    CHECK(guests[2]->panic_at_s >= 0);
    for (const std::string name : {"fleet-a", "fleet-b"}) {
        INFO(name);
        // The controller found the host again after all its reboots: "done"
        // is read only in the boot after the last, a kexec a turn and a
        // reset back since the start (whether a read or wait_for_connection
        // met each reboot is the emulator's timing).
        CHECK(has_line_matching(play, "\"" + name + ": boot run [^ ]*: done"));
        REQUIRE(states[name]);
        CHECK(states[name]->state.phase == BootPhase::done);
        CHECK(states[name]->state.boots.size() == 5);
        for (const std::string label : {"a", "b"}) {
            std::vector<std::string> bad;
            std::vector<fs::path> files;
            REQUIRE(fs::is_directory(controller / "results" / "demo" / label));
            for (const auto& e : fs::directory_iterator(controller / "results" / "demo" / label))
                if (e.path().filename().string().starts_with(name + "-")) files.push_back(e.path());
            INFO(label);
            REQUIRE(files.size() == 1);
            const auto read = read_result_paths(files, bad);
            REQUIRE(read.size() == 1);
            CHECK(read[0].complete);
            CHECK(read[0].runs.size() == 2);
            for (const auto& r : read[0].runs) CHECK(r.ok());
        }
    }
    // fleet-a's track from its unit (contest_track_mode=timer): the play
    // enabled its timer and started the unit once; the unit fetched the
    // tag made after the clone and took both points.
    {
        INFO(track_unit);
        CHECK(has_line_matching(play,
                                "fleet-a: .*track main: its unit.s settings in "
                                "/etc/contest/track/main.conf, its timer enabled, its "
                                "unit started once"));
        CHECK(has_line_matching(track_unit, "^Result=success$"));
        CHECK(has_line_matching(track_unit, "^ExecMainStatus=0$"));
        CHECK_FALSE(has_line_matching(track_unit, "^ExecMainStartTimestampMonotonic=0$"));
        CHECK(has_line_matching(track_unit, "^active$"));
        std::istringstream lines(track_unit.substr(track_unit.find("active\n") + 7));
        std::string origin_main, upstream_t1;
        lines >> origin_main >> upstream_t1;
        CHECK(origin_main.size() == 40);
        CHECK(origin_main == upstream_t1);
        CHECK_THAT(track_unit, Catch::Contains("points: 2, 1 stored, 1 failed, 0 to do"));
    }
    INFO(over);
    CHECK_THAT(over, Catch::Contains("b against a over 2 hosts"));
    CHECK_THAT(over, Catch::Contains("over 2 hosts: "));

    // Nothing of the play or the guests left: no QEMU, no ssh (Ansible's
    // masters end with their guest's connection), no ansible.
    CHECK(test::leftover_processes().empty());
    // "[/]path": the pattern does not match the shell that runs pgrep.
    for (const auto& mark : {dir.path(), sockets.path()})
        CHECK(
            test::shell_output("pgrep -f -- '[/]" + mark.string().substr(1) + "' || true").empty());
}
