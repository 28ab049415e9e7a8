#include "contest/cli/commands.h"

namespace contest {

namespace {

constexpr Subcommand kSubcommands[] = {
    {"run", cmd_run, "time the workload under each load, --runs times each; save results"},
    {"report", cmd_report, "tables from result files or folders (default: results/)"},
    {"compare", cmd_compare, "two labels (or files) side by side, with significance"},
    {"bisect", cmd_bisect, "the commit between --good and --bad that changed a measure, how sure"},
    {"track", cmd_track,
     "follows a kernel branch: each new point measured and stored, a change confirmed, bisected "
     "and mailed"},
    {"post", cmd_post, "a plain-text mail body of labels (or files) for a kernel list"},
    {"history", cmd_history,
     "every run in a results database (SQLite or PostgreSQL): its series, their change points"},
    {"export", cmd_export, "labels (or files) as one KCIDB submission, for KernelCI"},
    {"latency", cmd_latency, "one latency probe for --duration seconds; its wake-up latency"},
    {"loads", cmd_loads, "every load: name, what it does, its unit of work"},
    {"load", cmd_load, "one load alone for --duration seconds; prints its work rate"},
    {"sysinfo", cmd_sysinfo, "the system fingerprint, as JSON"},
    {"vm", cmd_vm, "vm check: which accelerator runs --kernel's guests here, and why"},
    {"help", cmd_help, "help man: the manual page; help bash-completion: a completion script"},
};

}  // namespace

std::span<const Subcommand> subcommands() {
    return kSubcommands;
}

}  // namespace contest
