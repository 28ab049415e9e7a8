// `contest sysinfo`
#include <iostream>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/load_cli.h"
#include "contest/observe/sysinfo.h"
#include "contest/sys/errors.h"
#include "contest/sys/json_text.h"

namespace contest {

int cmd_sysinfo(int argc, char** argv) {
    CommandLine cl;
    cl.name = "sysinfo";
    cl.usage = "contest sysinfo [--workdir D]";
    cl.summary =
        "Prints the system fingerprint recorded in every result file, as JSON: the machine,\n"
        "and under \"kernel\" its build, settings and the workdir's file system.";
    std::string workdir;
    add_options(cl, {{"workdir", OptionScope::host, po::value(&workdir)->value_name("D"),
                      "whose file system, mount and I/O scheduler to describe (default: "
                      "contest run's default workdir)"}});
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    if (workdir.empty()) {
        // Not made here: the folder it will be made in is on the same file system.
        std::filesystem::path dir = default_workdir();
        std::error_code ec;
        while (!std::filesystem::exists(dir, ec) && dir.has_parent_path() &&
               dir != dir.parent_path())
            dir = dir.parent_path();
        workdir = dir.string();
    }
    std::cout << json_text(system_fingerprint(workdir)) << "\n";
    return kExitOk;
}

}  // namespace contest
