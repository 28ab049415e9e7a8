#pragma once
// How contest starts a child, three ways, each for what the others cannot do:
//  - spawn(): a program, the usual way. A SpawnOptions says everything about
//    the child (argv, folder, environment, where its standard streams go,
//    whose process group it joins, the signal it gets when its parent dies),
//    and spawn() launches it with Boost.Process.
//  - TimedStarts (timed_starts.h): a program whose start is itself
//    measured (the exec probe), by vfork and execve: spawn's fork, PATH
//    search and exec-error pipe would be timed with it.
//  - fork_function(): a function of contest's own in a child (loads and
//    probes, which are code, not programs).
// (The run's cgroup guardian is forked and reaped in cgroup.cpp: it must
// outlive contest to kill the cgroup, not die with it as these do.)
// Waiting, timing and stopping are contest's own pidfd / wait4 / killpg
// machinery (process.h) for all three: spawn's child is detached from Boost
// at once, so Boost never reaps one behind contest's back.
#include <sys/types.h>

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contest/sys/exec_gate.h"
#include "contest/sys/unique_fd.h"

namespace contest {

// Where one of the child's standard streams goes.
struct StdStream {
    enum class Kind { inherit, null, file, fd, pipe };
    Kind kind = Kind::inherit;
    std::filesystem::path path;  // file: opened for reading (stdin) or writing
    bool append = true;          // file, for writing: append, else truncate
    int fd = -1;                 // fd: the caller's descriptor, duplicated

    static StdStream inherit() { return {}; }
    static StdStream null() { return of(Kind::null); }
    static StdStream file(std::filesystem::path p, bool append = true) {
        StdStream s = of(Kind::file);
        s.path = std::move(p);
        s.append = append;
        return s;
    }
    // A descriptor of the caller's; -1 stands for /dev/null.
    static StdStream from_fd(int fd) {
        if (fd < 0) return null();
        StdStream s = of(Kind::fd);
        s.fd = fd;
        return s;
    }
    // A new pipe; the caller's end comes back in Spawned.
    static StdStream pipe() { return of(Kind::pipe); }

  private:
    static StdStream of(Kind kind) {
        StdStream s;
        s.kind = kind;
        return s;
    }
};

// What ties a child to contest: its own process group (pgid == pid), so that
// one killpg stops it and all it starts, or the caller's group (a member of a
// load); and the signal it gets when the process that started it dies
// (PR_SET_PDEATHSIG; 0 for none).
struct ChildTies {
    bool own_group = true;
    int death_signal = SIGKILL;

    // A member of the caller's group (one killpg of a load stops it too)
    // that dies with the caller.
    static ChildTies in_callers_group() {
        ChildTies t;
        t.own_group = false;
        return t;
    }
};

struct SpawnOptions {
    std::filesystem::path cwd;               // empty: inherit
    std::vector<std::string> env_overrides;  // "NAME=value" over contest's environment
    StdStream in = StdStream::null();
    StdStream out = StdStream::inherit();
    StdStream err = StdStream::inherit();
    ChildTies ties;
    // A handshake around exec, for what must be set up on the child's pid
    // before it runs (perf counters enabled at exec): before_exec runs in the
    // child after its group, streams and folder are set, just before exec,
    // and must be async-signal-safe (it may block, e.g. on a pipe);
    // after_fork runs in the parent with the child's pid while the child is
    // still before exec, and must let before_exec return. Either may be unset.
    std::function<void()> before_exec;
    std::function<void(pid_t)> after_fork;

    // stdout and stderr appended to log, the way every step's log is kept.
    SpawnOptions& log_to(const std::filesystem::path& log) {
        out = err = StdStream::file(log);
        return *this;
    }
    // The file stdout goes to, for "see <log>" in failure messages.
    std::optional<std::filesystem::path> log() const {
        if (out.kind == StdStream::Kind::file) return out.path;
        return std::nullopt;
    }
};

// A program that stays in the caller's group and dies with it, its standard
// streams on the caller's descriptors (-1: /dev/null): how a load runs a
// helper program (tar, dbench) whose output it reads or feeds.
SpawnOptions in_callers_group(int in, int out, int err);

// A started child, with the caller's ends of the pipes it asked for.
struct Spawned {
    pid_t pid = -1;
    UniqueFd in, out, err;  // write to in; read from out and err
};

// Starts argv[0] (found on PATH by find_on_path when it has no '/') with the
// given options. Throws UsageError for an empty argv and EnvironmentError
// when the program cannot be started (not found, exec failed, cwd or a
// stream file unusable): "command not found" is never a run that failed
// quickly. The child is contest's to wait for (wait_child, wait_for_exit).
Spawned spawn_with_pipes(const std::vector<std::string>& argv, const SpawnOptions& options);

// The same, for a child with no pipes.
pid_t spawn(const std::vector<std::string>& argv, const SpawnOptions& options = {});

// Forks a child that runs fn and _exits with its return value (1 when it
// throws, with the message on stderr): for loads, which are code, not
// programs. The child is tied to contest as spawn's children are.
pid_t fork_function(const std::function<int()>& fn, const ChildTies& ties = {});

// Runs argv to completion (reaped, its group stopped) and returns its
// standard output, read through a pipe; "" when it cannot run or fails.
// For version strings and the like, small outputs that go into the result
// file. stderr goes to /dev/null unless options say otherwise.
std::string command_output(const std::vector<std::string>& argv, SpawnOptions options = {});
// The same with at most `within` for the command to print all and end:
// nullopt when it has not (its group then stopped), for a command of the
// user's that a run must not wait on for ever.
std::optional<std::string> command_output_within(const std::vector<std::string>& argv,
                                                 std::chrono::milliseconds within,
                                                 SpawnOptions options = {});

// Runs argv to completion (untimed helper steps: prepare, clean), in its own
// group, reaped and stopped. Throws StepFailed naming `what`, the status and
// the log when it fails; EnvironmentError when it cannot start.
void run_checked(const std::vector<std::string>& argv, const SpawnOptions& options,
                 const std::string& what);

// The error run_checked throws for a step that ended badly.
struct ExitInfo;
[[noreturn]] void throw_step_failed(const std::string& what, const ExitInfo& info,
                                    const SpawnOptions& options);

// The first line of text, without its newline.
std::string first_line(const std::string& text);

// The one PATH search: the first regular, executable file called `name` in
// the ':'-separated search_path. An empty entry (which means ".") is skipped:
// a benchmark does not run what happens to lie in the current folder. A name
// with a '/' is taken as a path and only checked.
std::optional<std::filesystem::path> find_on_path(std::string_view name,
                                                  std::string_view search_path);
std::optional<std::filesystem::path> find_on_path(std::string_view name);  // $PATH

}  // namespace contest
