#pragma once
// One function per subcommand; argv[0] is the subcommand's name. Each returns
// an exit code (errors.h) or throws UsageError / EnvironmentError.
namespace contest {

int cmd_run(int argc, char** argv);
int cmd_report(int argc, char** argv);
int cmd_compare(int argc, char** argv);
int cmd_post(int argc, char** argv);
int cmd_loads(int argc, char** argv);
int cmd_load(int argc, char** argv);
int cmd_latency(int argc, char** argv);
int cmd_sysinfo(int argc, char** argv);
int cmd_vm(int argc, char** argv);

}  // namespace contest
