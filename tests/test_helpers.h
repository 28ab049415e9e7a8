#pragma once
// Shared by the end-to-end tests: run the contest binary, scratch folders,
// the leftover-process check, the programs a test needs, and skips
// (test_skip.h).
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/sys/path_below.h"
#include "contest/sys/process.h"
#include "contest/sys/spawn.h"
#include "test_skip.h"

namespace contest::test {

// A fresh folder removed at the end of the test.
class ScratchDir {
  public:
    // Under base (the system's temporary folder by default).
    explicit ScratchDir(const std::string& tag, const std::filesystem::path& base =
                                                    std::filesystem::temp_directory_path()) {
        path_ = base / ("contest-test-" + tag + "-" + std::to_string(::getpid()));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& s) const { return path_ / s; }

  private:
    std::filesystem::path path_;
};

struct Outcome {
    int exit_code = -1;
    std::string out, err;
};

// Writes text to path, its folders made; executable: the owner's to run
// (a stand-in tool), readable by the group.
inline void put_file(const std::filesystem::path& path, const std::string& text,
                     bool executable = false) {
    namespace fs = std::filesystem;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    if (executable) fs::permissions(path, fs::perms::owner_all | fs::perms::group_read);
}

// Stand-ins in bin for a machine's tools (reboot, kexec, ...): each appends
// its name and words as one line to `asked` and succeeds.
inline void put_recording_tools(const std::filesystem::path& bin,
                                const std::vector<std::string>& tools,
                                const std::filesystem::path& asked) {
    for (const auto& tool : tools)
        put_file(bin / tool, "#!/bin/sh\necho \"" + tool + " $*\" >> '" + asked.string() + "'\n",
                 true);
}

// How many times `what` is in text (overlapping ones each counted).
inline std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The test process adopts every orphan of what it starts, so that after the
// contest binary exits, any process it left behind is our child and shows in
// own_children().
inline void adopt_orphans() {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
}

// A pid no process has now (a child's, reaped): what a contest killed hard
// leaves its name in.
inline pid_t a_gone_pid() {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    ::waitpid(pid, nullptr, 0);
    return pid;
}

// Starts argv (looked up on PATH); stdout/stderr go to files in dir. When
// argv[0] cannot be run, the child exits 127 saying why on that stderr.
// cwd: the folder it runs in (empty: this one).
inline pid_t start_command(std::vector<std::string> argv, const std::filesystem::path& dir,
                           const std::filesystem::path& cwd = {}) {
    adopt_orphans();
    std::fflush(nullptr);  // or the child's freopen writes our buffered output again
    const std::string cannot_run = "cannot run " + argv.at(0) + ": ";
    pid_t pid = ::fork();
    if (pid == 0) {
        std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
        if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr))
            ::_exit(126);
        if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
        std::vector<char*> c;
        for (auto& a : argv) c.push_back(a.data());
        c.push_back(nullptr);
        ::execvp(c[0], c.data());
        ::dprintf(2, "%s%s\n", cannot_run.c_str(), std::strerror(errno));
        ::_exit(127);
    }
    return pid;
}

// Starts CONTEST_BINARY with args; stdout/stderr go to files in dir.
inline pid_t start_contest(const std::vector<std::string>& args, const std::filesystem::path& dir,
                           const std::filesystem::path& cwd = {}) {
    std::vector<std::string> argv{CONTEST_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return start_command(std::move(argv), dir, cwd);
}

// The .json files anywhere under dir, sorted; none when dir is missing or
// unreadable.
inline std::vector<std::filesystem::path> result_files(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         !ec && it != std::filesystem::end(it); it.increment(ec))
        if (it->path().extension() == ".json") out.push_back(it->path());
    std::sort(out.begin(), out.end());
    return out;
}

// Waits (up to 20 s) until process pid catches signal sig: a signal sent
// before, between fork and exec or before main installs its handlers, would
// kill it by default, and the test would measure the machine's speed.
inline bool wait_until_catching(pid_t pid, int sig) {
    const std::string status = "/proc/" + std::to_string(pid) + "/status";
    for (int i = 0; i < 2000; ++i) {
        std::ifstream in(status);
        std::string line;
        while (std::getline(in, line))
            if (line.rfind("SigCgt:", 0) == 0 &&
                (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1) & 1))
                return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

inline Outcome finish_contest(pid_t pid, const std::filesystem::path& dir) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    Outcome o;
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    o.out = slurp(dir / "stdout");
    o.err = slurp(dir / "stderr");
    return o;
}

inline Outcome run_contest_binary(const std::vector<std::string>& args,
                                  const std::filesystem::path& dir,
                                  const std::filesystem::path& cwd = {}) {
    return finish_contest(start_contest(args, dir, cwd), dir);
}

// The runs the result files under dir hold, all told (a file being
// written, or not JSON, counts none): what a test waits on before it
// interrupts a run in the middle.
inline std::size_t runs_saved(const std::filesystem::path& dir) {
    std::size_t n = 0;
    for (const auto& file : result_files(dir)) try {
            n += nlohmann::json::parse(slurp(file)).at("runs").size();
        } catch (const std::exception&) {
        }
    return n;
}

// Waits (at most `seconds`) until the files under dir hold `runs` runs.
inline bool wait_for_runs_saved(const std::filesystem::path& dir, std::size_t runs,
                                double seconds = 120) {
    for (int i = 0; i < seconds * 20 && runs_saved(dir) < runs; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return runs_saved(dir) >= runs;
}

// Processes left behind by what this test started (they are ours, as
// subreaper), after giving the dying a moment. Reaps and kills them so one
// failing test does not poison the next.
inline std::vector<pid_t> leftover_processes() {
    std::vector<pid_t> left;
    for (int i = 0; i < 50; ++i) {
        int status;
        while (::waitpid(-1, &status, WNOHANG) > 0) {
        }
        left = own_children();
        if (left.empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!left.empty()) kill_and_reap_all_children();
    return left;
}

// Fails the test unless `program` is on PATH: a program the tests need is
// installed by `make deps-test` (the Makefile's TEST_DEPS), and a test that
// quietly does without it would pass on a machine that lacks it.
inline void require_program(const std::string& program) {
    const char* path = std::getenv("PATH");
    INFO(program << " is not on PATH (" << (path ? path : "unset")
                 << "): `make deps-test` installs it");
    REQUIRE(find_on_path(program).has_value());
}

// The text with its wrapped lines joined again (a newline and the next
// line's indent read as one space), to find a sentence in it.
inline std::string unwrapped(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == ' ') {
            while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
            out += ' ';
        } else {
            out += text[i];
        }
    }
    return out;
}

// What a shell pipeline prints (trailing newlines dropped): an independent
// oracle for tests (sha256sum, findmnt), run through contest's own spawn.
inline std::string shell_output(const std::string& cmd) {
    std::string out = contest::command_output({"sh", "-c", cmd});
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

// Debian's generic kernel package, the one linux-image-amd64 depends on now,
// which the guest tests boot (contest fetches it with apt-get download into
// the shared workdir's cache, vm_test_workdir()).
inline std::string debian_kernel_package() {
    static const std::string name = shell_output(
        "apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: "
        "\\(linux-image-[0-9].*-amd64\\)$/\\1/p' | head -1");
    return name;
}

// A PATH of the system's own folders, for a command run as another user
// (nobody): the tests' PATH is the dependency-path folder in the build
// tree, which may lie below a folder only root can enter (a clone in
// /root or in a mktemp -d folder).
inline const std::string kSystemPath = "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";

// A copy of contest in dir/bin that any user may run (the folder 0755, dir
// o+x), for a test that runs contest as another user (nobody): the build
// may lie below a folder only root can enter, where CONTEST_BINARY cannot
// be reached. What that user is given to read must lie in dir too.
inline std::filesystem::path contest_others_can_run(const ScratchDir& dir) {
    namespace fs = std::filesystem;
    const auto open = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                      fs::perms::others_read | fs::perms::others_exec;  // 0755
    fs::permissions(dir.path(), fs::perms::others_exec, fs::perm_options::add);
    fs::create_directories(dir / "bin");
    fs::permissions(dir / "bin", open);
    const fs::path binary = dir / "bin" / "contest";
    fs::copy_file(CONTEST_BINARY, binary, fs::copy_options::overwrite_existing);
    fs::permissions(binary, open);
    return binary;
}

// One workdir for every guest test, so the package is fetched and unpacked once.
inline std::filesystem::path vm_test_workdir() {
    return std::filesystem::path(CONTEST_BINARY).parent_path() / "vm-test-workdir";
}

// A folder for scratch folders that a reboot would keep, as a --boot run's
// results must be (it refuses /tmp): below the build folder, or where the
// checkout is under /tmp (as CI's may be), /var/tmp/contest-tests-UID,
// this user's alone (a --boot run trusts no folder others could swap).
inline std::filesystem::path scratch_kept_at_boot() {
    namespace fs = std::filesystem;
    const fs::path below_build = vm_test_workdir() / "scratch";
    if (!contest::path_below(fs::weakly_canonical(fs::absolute(below_build)), "/tmp"))
        return below_build;
    const fs::path base = "/var/tmp/contest-tests-" + std::to_string(::geteuid());
    fs::create_directory(base);
    fs::permissions(base, fs::perms::owner_all);
    return base;
}

// The bytes of a bzImage as contest reads its setup header: "HdrS" at
// 0x202, the version string's offset from 0x200 at 0x20E, one setup sector
// (0x1F1) and a protected-mode part of `body` bytes (syssize at 0x1F4, in
// 16-byte paragraphs); `body` bytes follow, so the file is whole.
inline std::string fake_bzimage(const std::string& version, std::size_t body = 0) {
    std::string bytes(0x400, '\0');
    bytes[0x1F1] = 1;
    const std::size_t paragraphs = (body + 15) / 16;
    for (int i = 0; i < 4; ++i) bytes[0x1F4 + i] = static_cast<char>(paragraphs >> (8 * i) & 0xff);
    bytes.replace(0x202, 4, "HdrS");
    bytes[0x20E] = 0x00;
    bytes[0x20F] = 0x01;  // 0x200 + 0x100
    bytes.replace(0x300, version.size(), version);
    return bytes + std::string(paragraphs * 16, '\x90');
}

// What the bash completion `script` offers for the command line `line`
// (the words bash would give; the last is the one completed).
inline std::string bash_completions(const std::filesystem::path& script, const std::string& line) {
    return shell_output("bash -c 'source " + script.string() + "; COMP_WORDS=(" + line +
                        "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _contest; echo "
                        "\"${COMPREPLY[*]}\"'");
}

// The words of a run whose workload is `true` and that waits for nothing
// (no warm-up, no timeline), quiet, in the workdir `work`: for tests of
// what comes around the runs.
inline std::vector<std::string> quick_run_words(const std::filesystem::path& work) {
    return {"-w", "command",   "--workload-cmd", "true", "--warmup", "0", "--timeline-hz",
            "0",  "--workdir", work.string(),    "-q"};
}

// A made-up machine's boot tools for --boot's tests: reboot and systemctl
// that record their words in `asked`, and a kexec that does too, or refuses
// every kernel while `refuse` exists (a machine whose kexec is off).
inline void put_stand_in_kexec(const std::filesystem::path& bin, const std::filesystem::path& asked,
                               const std::filesystem::path& refuse) {
    put_recording_tools(bin, {"reboot", "systemctl"}, asked);
    put_file(bin / "kexec",
             "#!/bin/sh\n[ -e '" + refuse.string() +
                 "' ] && { echo 'kexec: refused here' >&2; exit 1; }\necho \"kexec $*\" >> '" +
                 asked.string() + "'\n",
             true);
}

// The stand-in tools in `bin` first on PATH and the running kernel read
// from `proc` (the --boot steps' CONTEST_TEST_RUNNING_KERNEL), while it lives.
class StandInBootEnvironment {
  public:
    StandInBootEnvironment(const std::filesystem::path& bin, const std::filesystem::path& proc) {
        const char* path = std::getenv("PATH");
        saved_path_ = path ? path : "/usr/bin:/bin";
        ::setenv("PATH", (bin.string() + ":" + saved_path_).c_str(), 1);
        ::setenv("CONTEST_TEST_RUNNING_KERNEL", proc.c_str(), 1);
    }
    ~StandInBootEnvironment() {
        ::setenv("PATH", saved_path_.c_str(), 1);
        ::unsetenv("CONTEST_TEST_RUNNING_KERNEL");
    }
    StandInBootEnvironment(const StandInBootEnvironment&) = delete;
    StandInBootEnvironment& operator=(const StandInBootEnvironment&) = delete;

  private:
    std::string saved_path_;
};

}  // namespace contest::test
