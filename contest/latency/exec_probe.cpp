// exec: what a person waits for when a program opens. Its program is started
// five times a second and each start is timed from the request to the
// reaping (exec_start.h); a start at or over its threshold is missed.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "contest/latency/exec_start.h"
#include "contest/latency/probe_table.h"
#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"
#include "contest/sys/spawn.h"
#include "contest/sys/words.h"

namespace contest::latency {

namespace {

constexpr ProbeOwnOption kExecOptions[] = {
    {.name = "exec-cmd", .help = "the program started 5 times a second (words, no shell)"},
    {.name = "exec-missed-ms", .help = "a start this slow or slower is missed"},
};

// The exec probe's argv, its program found now: a command that cannot start
// is the user's mistake, said before anything runs.
std::vector<std::string> exec_argv(const std::string& command) {
    std::vector<std::string> argv;
    try {
        argv = split_words(command);
    } catch (const UsageError& e) {
        throw UsageError("--exec-cmd: " + std::string(e.what()));
    }
    if (argv.empty()) throw UsageError("--exec-cmd: the exec probe needs a command to start");
    auto path = find_on_path(argv[0]);
    if (!path)
        throw UsageError("--exec-cmd '" + command + "': " + argv[0] +
                         " is not an executable file (nor on PATH)");
    argv[0] = path->string();
    return argv;
}

void configure_exec(ProbeOptions& o, const ProbeSettings& settings) {
    o.period_ns = kExecPeriodNs;
    o.exec_argv = exec_argv(settings.exec_command);
    if (!(settings.exec_missed_ms >= kMinExecMissedMs &&
          settings.exec_missed_ms <= kMaxExecMissedMs))
        throw UsageError("--exec-missed-ms " + fixed(settings.exec_missed_ms, 3) +
                         ": must be from 0.001 to 10000");
    o.exec_missed_ns = std::llround(settings.exec_missed_ms * 1e6);
}

// One start of the program, timed from the request to the reaping; missed
// when it took the threshold or longer.
OwnPeriod start_program(const ProbeOptions& o) {
    auto starts = std::make_shared<const ProgramStarts>(o.exec_argv);
    return [starts, missed_ns = o.exec_missed_ns] {
        PeriodOutcome got;
        got.sample_ns = starts->time_one();
        got.missed = got.sample_ns >= missed_ns;
        return got;
    };
}

// A probe that never settled was waiting on a start: a program that does
// not end (a server, a sleep) has no start time to give.
std::string start_not_ended(const ProbeOptions& o) {
    return "a start of " + join_words(o.exec_argv) +
           " had not ended when the window closed; the exec probe times a command that ends";
}

// Its settings as the config and every result keep them.
nlohmann::json exec_record(const ProbeOptions& o) {
    return {{"command", o.exec_argv}, {"missed_ns", o.exec_missed_ns}};
}

}  // namespace

extern const ProbeInfo kExecProbe{
    .name = "exec",
    .help =
        "starts a program 5 times a second and times each start, from the request to the "
        "reaping: the wait when a program opens",
    .options = kExecOptions,
    .configure = configure_exec,
    .own_period = start_program,
    .record = exec_record,
    .unsettled = start_not_ended,
    .footnote =
        "the time of each start of its program, from the request to the reaping; "
        "missed: a start at or over its threshold, or one not made because the one "
        "before ran over its period",
};

}  // namespace contest::latency
