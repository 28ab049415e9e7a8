#pragma once
// One function per subcommand; argv[0] is the subcommand's name. Each returns
// an exit code (errors.h) or throws UsageError / EnvironmentError.
#include <span>

namespace contest {

int cmd_run(int argc, char** argv);
int cmd_report(int argc, char** argv);
int cmd_compare(int argc, char** argv);
int cmd_post(int argc, char** argv);
int cmd_bisect(int argc, char** argv);
int cmd_track(int argc, char** argv);
int cmd_export(int argc, char** argv);
int cmd_history(int argc, char** argv);
int cmd_loads(int argc, char** argv);
int cmd_load(int argc, char** argv);
int cmd_latency(int argc, char** argv);
int cmd_sysinfo(int argc, char** argv);
int cmd_vm(int argc, char** argv);
int cmd_help(int argc, char** argv);  // help man | help bash-completion

struct Subcommand {
    const char* name;
    int (*run)(int, char**);
    const char* help;  // one line, for `contest --help` and the man page
};
// Every subcommand, in the order `contest --help` lists them.
std::span<const Subcommand> subcommands();

}  // namespace contest
