// contest: kernel responsiveness benchmark. Dispatches to one subcommand.
#include <cstring>
#include <iostream>
#include <new>
#include <string_view>
#include <system_error>

#include <boost/program_options/errors.hpp>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/db_password.h"
#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/signals.h"
#include "contest/sys/text.h"
#include "contest/sys/version.h"

namespace {

void usage(std::ostream& out) {
    out << "usage: contest COMMAND [options]\n\n"
           "Times a reference workload (a kernel compile) with no load and under loads\n"
           "that hurt responsiveness, and prints the classic contest table.\n\ncommands:\n";
    for (const auto& s : contest::subcommands())
        out << "  " << s.name << std::string(10 - std::strlen(s.name), ' ') << s.help << "\n";
    out << "\n`contest COMMAND --help` for a command's options; --version for the version.\n";
}

// The exception in flight, said in one line on stderr, and the exit code its
// type stands for (errors.h, docs/contract.md "Exit codes"). The one place an
// exception becomes an exit code.
int exit_code_for_current_exception() {
    auto say = [](const std::string& what) { std::cerr << "contest: " << what << "\n"; };
    try {
        throw;
    } catch (const contest::UsageError& e) {
        say(e.what());
        return contest::kExitUsage;
    } catch (const boost::program_options::error& e) {
        say(contest::printable(contest::option_error_text(e)));
        return contest::kExitUsage;
    } catch (const contest::EnvironmentError& e) {
        say(e.what());
        return contest::kExitEnvironment;
    } catch (const contest::StepFailed& e) {
        say(e.what());
        return contest::kExitSomeRunsFailed;
    } catch (const contest::Interrupted&) {
        say("interrupted");
        return contest::kExitInterrupted;
    } catch (const std::bad_alloc&) {
        say("out of memory");
        return contest::kExitEnvironment;
    } catch (const std::system_error& e) {  // also std::filesystem::filesystem_error
        say(e.what());
        return contest::kExitEnvironment;
    } catch (const std::exception& e) {
        say(std::string("internal error: ") + e.what());
        return contest::kExitInternal;
    } catch (...) {
        say("internal error: an exception of unknown type");
        return contest::kExitInternal;
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(std::cerr);
        return contest::kExitUsage;
    }
    std::string_view cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || (cmd == "help" && argc == 2)) {
        usage(std::cout);
        return contest::kExitOk;
    }
    if (cmd == "--version" || cmd == "-V") {
        std::cout << "contest " << contest::kVersion << "\n";
        return contest::kExitOk;
    }
    contest::install_interrupt_handlers();
    contest::become_subreaper();
    int rc = contest::kExitUsage;
    bool known = false;
    try {
        // Before any command reads (and records) its words.
        contest::move_db_password_to_environment(argc, argv, std::cerr);
        for (const auto& s : contest::subcommands()) {
            if (cmd == s.name) {
                known = true;
                rc = s.run(argc - 1, argv + 1);
            }
        }
        if (!known) {
            std::cerr << "contest: unknown command '" << cmd << "' (see contest --help)\n";
            rc = contest::kExitUsage;
        }
    } catch (...) {
        rc = exit_code_for_current_exception();
    }
    contest::kill_and_reap_all_children();
    return rc;
}
