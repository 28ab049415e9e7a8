#pragma once
// Shared parsing for every subcommand: Boost.ProgramOptions on the command
// line, an INI file (--config) merged under it, --help, and UsageError with
// one line naming the option (or file and line) for anything wrong.
#include <string>

#include <boost/program_options.hpp>

namespace contest {

namespace po = boost::program_options;

struct CommandLine {
    std::string name;     // "run", "report", ...
    std::string usage;    // "contest run [options] [LOAD...]"
    std::string summary;  // one line: what the command does
    po::options_description options{"Options", 100};
    po::positional_options_description positional;
    bool accepts_config = false;  // adds --config FILE
};

// Parses argv into vm (command line first, then the config file, so the
// command line wins). Returns false when --help was printed (exit 0).
// Throws UsageError on any bad option, value or config line.
bool parse_command_line(CommandLine& cl, int argc, char** argv, po::variables_map& vm);

}  // namespace contest
