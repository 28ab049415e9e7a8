#include "contest/sys/cgroup.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <atomic>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "contest/sys/process.h"
#include "contest/sys/text_file.h"
#include "contest/sys/unique_fd.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// This process's cgroup v2 folder ("/sys/fs/cgroup/unified/user.slice"), or
// "" with why when there is no v2 hierarchy.
std::string own_cgroup_dir(std::string& why) {
    auto mounts = read_text_file("/proc/self/mountinfo");
    auto groups = read_text_file("/proc/self/cgroup");
    if (!mounts || !groups) {
        why = "cannot read /proc/self/mountinfo or /proc/self/cgroup";
        return "";
    }
    std::string mount_point;
    std::istringstream m(*mounts);
    for (std::string line; std::getline(m, line);) {
        // "... - cgroup2 cgroup2 rw": the mount point is field 5.
        auto dash = line.find(" - cgroup2 ");
        if (dash == std::string::npos) continue;
        std::istringstream f(line);
        std::string field;
        for (int i = 1; i <= 5 && f >> field; ++i)
            if (i == 5) mount_point = field;
        break;
    }
    if (mount_point.empty()) {
        why = "no cgroup v2 hierarchy is mounted";
        return "";
    }
    std::istringstream g(*groups);
    for (std::string line; std::getline(g, line);)
        if (line.starts_with("0::")) {
            std::string dir = mount_point + line.substr(3);
            while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
            return dir;
        }
    why = "this process is in no cgroup v2";
    return "";
}

bool write_text(const std::string& path, const std::string& text) {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    return fd.get() >= 0 && write_all(fd.get(), text);
}

// Kills every process in the leaf and removes it (waiting up to about 2 s for
// the dying to leave). Only system calls: the guardian runs it after fork.
bool kill_and_remove(const char* kill_file, const char* leaf) {
    if (UniqueFd fd(::open(kill_file, O_WRONLY | O_CLOEXEC)); fd.get() >= 0)
        write_all(fd.get(), "1");
    for (int i = 0; i < 200; ++i) {
        if (::rmdir(leaf) == 0 || errno == ENOENT) return true;
        struct timespec ts {
            0, 10 * 1000 * 1000
        };
        ::nanosleep(&ts, nullptr);
    }
    return false;
}

// The guardian: waits for contest to die, then kills what is left of its
// runs. Immune to the terminal's signals, so that Ctrl-C leaves it to
// contest's own, orderly stop.
[[noreturn]] void guard(pid_t contest, const char* kill_file, const char* leaf) {
    ::setpgid(0, 0);
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGTERM, SIG_IGN);
    ::signal(SIGHUP, SIG_IGN);
    ::signal(SIGQUIT, SIG_IGN);
    int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(null, 2);
    }
    ::syscall(SYS_close_range, 3U, ~0U, 0U);
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, contest, 0));
    if (pidfd >= 0 && ::getppid() == contest) {
        struct pollfd p {
            pidfd, POLLIN, 0
        };
        while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
        }
    }
    kill_and_remove(kill_file, leaf);
    ::_exit(0);
}

std::atomic<unsigned> set_up_count{0};

}  // namespace

unsigned RunContainment::set_ups() {
    return set_up_count.load();
}

std::unique_ptr<RunContainment> RunContainment::unless_held(std::string& held) {
    if (!held.empty()) return nullptr;
    auto made = set_up();
    held = made->description();
    return made;
}

std::unique_ptr<RunContainment> RunContainment::set_up() {
    ++set_up_count;
    std::unique_ptr<RunContainment> c(new RunContainment());
    std::string why;
    const std::string home = own_cgroup_dir(why);
    const std::string leaf = home.empty() ? "" : home + "/contest-" + std::to_string(::getpid());
    auto fall_back = [&](const std::string& reason) {
        c->description_ = "process groups + parent-death signal (" + reason + ")";
        return std::move(c);
    };
    if (home.empty()) return fall_back(why);
    if (::mkdir(leaf.c_str(), 0700) != 0)
        return fall_back("cannot create " + leaf + ": " + std::strerror(errno));
    const std::string kill_file = leaf + "/cgroup.kill";
    if (::access(kill_file.c_str(), W_OK) != 0) {
        ::rmdir(leaf.c_str());
        return fall_back("this kernel's cgroup v2 has no cgroup.kill");
    }
    const pid_t self = ::getpid();
    std::fflush(nullptr);
    const pid_t guardian = ::fork();
    if (guardian == 0) guard(self, kill_file.c_str(), leaf.c_str());
    if (guardian < 0 || !write_text(leaf + "/cgroup.procs", "0")) {
        const std::string reason =
            guardian < 0 ? "cannot start its guardian" : "cannot move into " + leaf;
        if (guardian > 0) {
            ::kill(guardian, SIGKILL);
            ::waitpid(guardian, nullptr, 0);
        }
        ::rmdir(leaf.c_str());
        return fall_back(reason);
    }
    c->leaf_ = leaf;
    c->home_ = home;
    c->guardian_ = guardian;
    c->description_ = "cgroup v2 leaf " + leaf + " (cgroup.kill)";
    return c;
}

RunContainment::~RunContainment() {
    if (leaf_.empty()) return;
    write_text(home_ + "/cgroup.procs", "0");
    kill_and_remove((leaf_ + "/cgroup.kill").c_str(), leaf_.c_str());
    ::kill(guardian_, SIGKILL);
    while (::waitpid(guardian_, nullptr, 0) < 0 && errno == EINTR) {
    }
}

std::string own_run_leaf() {
    std::string why;
    const std::string dir = own_cgroup_dir(why);
    const std::string name = "contest-" + std::to_string(::getpid());
    return dir.ends_with("/" + name) ? dir : "";
}

std::vector<std::string> remove_stale_cgroups() {
    std::vector<std::string> removed;
    std::string why;
    const std::string home = own_cgroup_dir(why);
    if (home.empty()) return removed;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(home, ec)) {
        const auto pid = pid_after_prefix(e.path().filename().string(), "contest-");
        if (!pid || !e.is_directory(ec) || !contest_gone(*pid)) continue;
        const std::string leaf = e.path().string();
        if (kill_and_remove((leaf + "/cgroup.kill").c_str(), leaf.c_str()))
            removed.push_back(leaf + " (cgroup of contest pid " + std::to_string(*pid) +
                              "; its processes killed)");
    }
    return removed;
}

}  // namespace contest
