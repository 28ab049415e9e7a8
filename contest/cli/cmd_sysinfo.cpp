// `contest sysinfo`
#include <iostream>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/sys/errors.h"
#include "contest/sys/sysinfo.h"

namespace contest {

int cmd_sysinfo(int argc, char** argv) {
    CommandLine cl;
    cl.name = "sysinfo";
    cl.usage = "contest sysinfo";
    cl.summary = "Prints the system fingerprint recorded in every result file, as JSON.";
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    std::cout << system_fingerprint().dump(2) << "\n";
    return kExitOk;
}

}  // namespace contest
