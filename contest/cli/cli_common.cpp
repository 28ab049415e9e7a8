#include "contest/cli/cli_common.h"

#include <fstream>
#include <iostream>

#include "contest/sys/errors.h"

namespace contest {

bool parse_command_line(CommandLine& cl, int argc, char** argv, po::variables_map& vm) {
    cl.options.add_options()("help,h", "show this help");
    if (cl.accepts_config)
        cl.options.add_options()("config", po::value<std::string>()->value_name("FILE"),
                                 "read options from an INI file (the command line wins)");
    try {
        po::store(po::command_line_parser(argc, argv)
                      .options(cl.options)
                      .positional(cl.positional)
                      .style(po::command_line_style::unix_style)
                      .run(),
                  vm);
    } catch (const po::error& e) {
        throw UsageError("contest " + cl.name + ": " + e.what());
    }
    if (vm.count("help")) {
        std::cout << "usage: " << cl.usage << "\n" << cl.summary << "\n\n" << cl.options << "\n";
        return false;
    }
    if (cl.accepts_config && vm.count("config")) {
        const auto path = vm["config"].as<std::string>();
        std::ifstream in(path);
        if (!in) throw UsageError("cannot read config file " + path);
        try {
            po::store(po::parse_config_file(in, cl.options, false), vm);
        } catch (const po::error& e) {
            // Boost names the option but not the line: find it for the user.
            std::string what = e.what();
            std::ifstream again(path);
            std::string line;
            int n = 0, found = 0;
            if (auto* oe = dynamic_cast<const po::error_with_option_name*>(&e)) {
                std::string opt = oe->get_option_name();
                while (opt.size() && opt[0] == '-') opt.erase(0, 1);
                while (std::getline(again, line)) {
                    ++n;
                    auto key = line.substr(0, line.find('='));
                    key.erase(0, key.find_first_not_of(" \t"));
                    key.erase(key.find_last_not_of(" \t") + 1);
                    if (!key.empty() && key == opt) {
                        found = n;
                        break;
                    }
                }
            }
            throw UsageError(path + (found ? ":" + std::to_string(found) : std::string()) + ": " +
                             what);
        }
    }
    try {
        po::notify(vm);
    } catch (const po::error& e) {
        throw UsageError("contest " + cl.name + ": " + e.what());
    }
    return true;
}

}  // namespace contest
