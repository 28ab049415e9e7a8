#include "contest/cli/manual.h"

#include <iostream>
#include <set>
#include <string_view>
#include <vector>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/latency/probe_table.h"
#include "contest/report/outputs.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/sys/version.h"
#include "loads/registry.h"

namespace contest {

namespace {

// Every command's facts, as its own parser has them: each is run with its
// parser collecting instead of parsing.
std::vector<CommandFacts> every_command() {
    std::vector<CommandFacts> facts;
    collect_command_facts(&facts);
    try {
        for (const auto& s : subcommands()) {
            std::string name = s.name;
            char* argv[] = {name.data(), nullptr};
            s.run(1, argv);
        }
    } catch (...) {
        collect_command_facts(nullptr);
        throw;
    }
    collect_command_facts(nullptr);
    return facts;
}

// Text as roff shows it: a backslash escaped, a '-' a minus (so that options
// can be searched and pasted), a line that starts with '.' or '\'' not
// taken as a request.
std::string roff(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
    }
    std::string lines;
    std::size_t start = 0;
    while (start <= out.size()) {
        const std::size_t end = out.find('\n', start);
        std::string line = out.substr(start, end == std::string::npos ? end : end - start);
        if (!line.empty() && (line[0] == '.' || line[0] == '\'')) line = "\\&" + line;
        lines += line;
        if (end == std::string::npos) break;
        lines += '\n';
        start = end + 1;
    }
    return lines;
}

std::string option_heading(const OptionFacts& o) {
    std::string head = "\\fB\\-\\-" + roff(o.long_name) + "\\fR";
    if (o.short_name) head = "\\fB\\-" + std::string(1, o.short_name) + "\\fR, " + head;
    if (!o.parameter.empty()) head += " \\fI" + roff(o.parameter) + "\\fR";
    return head;
}

std::string upper(std::string text) {
    for (char& c : text)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return text;
}

bool takes_loads(const CommandFacts& c) {
    return c.usage.find("LOAD") != std::string::npos;
}

}  // namespace

std::string man_page() {
    const std::vector<CommandFacts> commands = every_command();
    std::string out = ".TH CONTEST 1 \"\" \"contest " + std::string(kVersion) +
                      "\" \"User Commands\"\n"
                      ".SH NAME\n"
                      "contest \\- a kernel responsiveness benchmark: a workload timed with no "
                      "load and under loads\n"
                      ".SH SYNOPSIS\n"
                      ".B contest\n"
                      ".I COMMAND\n"
                      "[options]\n"
                      ".SH DESCRIPTION\n"
                      "Times a reference workload (a kernel compile) with no load and under loads "
                      "that hurt responsiveness, records wall time, CPU%, the load's work and the "
                      "Ratio to no_load, and prints the classic contest table. "
                      "contest post writes a comparison as a mail body for a kernel list (in "
                      "contest's own shape, the 0-day robot's or LKML's normalised one: "
                      "\\-\\-style), and contest export as a submission to KernelCI's results "
                      "database, KCIDB.\n"
                      ".SH COMMANDS\n";
    for (const auto& s : subcommands())
        out += ".TP\n.B " + roff(s.name) + "\n" + roff(s.help) + "\n";
    for (const auto& c : commands) {
        out += ".SH \"CONTEST " + roff(upper(c.name)) + "\"\n.B " + roff(c.usage) + "\n.PP\n" +
               roff(c.summary) + "\n";
        for (const auto& o : c.options)
            out += ".TP\n" + option_heading(o) + "\n" + roff(o.help) + "\n";
    }
    out += ".SH LOADS\n";
    for (const LoadInfo* load : load_registry()) {
        out += ".TP\n.B " + roff(load->name) + "\n" + roff(load->help);
        if (!load->unit.empty()) out += " (Loads in " + roff(load->unit) + ")";
        out += "\n";
    }
    out +=
        ".TP\n.B \\-\\-load\\-cmd NAME=CMD\nyour own command as the load NAME\n"
        ".SH PROBES\n";
    for (const latency::ProbeInfo* probe : latency::probe_table())
        out += ".TP\n.B " + roff(probe->name) + "\n" + roff(probe->help) + "\n";
    out += ".SH OUTPUTS\n";
    for (const Output& o : outputs())
        out += ".TP\n.B " + roff(std::string(o.name)) + "\n" + roff(std::string(o.what)) + " (" +
               roff(offered_where(o)) + ")\n";
    out +=
        ".SH \"SEE ALSO\"\n"
        "docs/contract.md, the user's contract, and the other documents of docs/ in "
        "contest's source (docs/kcidb.md: the post shapes and sending results to KernelCI); "
        "and kcidb\\-submit, of KernelCI's kcidb package.\n";
    return out;
}

std::string bash_completion() {
    const std::vector<CommandFacts> commands = every_command();
    std::string names, loads = "default all", probes = latency::probe_names(" ");
    for (const auto& s : subcommands()) names += std::string(names.empty() ? "" : " ") + s.name;
    for (const LoadInfo* load : load_registry()) loads += " " + std::string(load->name);
    std::string out =
        "# bash completion for contest: made by `contest help bash-completion` from its\n"
        "# option, load and probe tables.\n"
        "_contest() {\n"
        "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
        "    local options='' values=''\n"
        "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
        "        COMPREPLY=($(compgen -W '" +
        names +
        "' -- \"$cur\"))\n"
        "        return\n"
        "    fi\n"
        "    case ${COMP_WORDS[1]} in\n";
    for (const auto& c : commands) {
        std::set<std::string> words;
        for (const auto& o : c.options) {
            words.insert("--" + o.long_name);
            if (o.short_name) words.insert(std::string("-") + o.short_name);
        }
        std::string list;
        for (const auto& w : words) list += (list.empty() ? "" : " ") + w;
        out += "        " + c.name + ") options='" + list + "'";
        // What a command takes besides options: load names, or help's pages.
        if (takes_loads(c)) out += "; values='" + loads + "'";
        if (c.name == "help") out += "; values='man bash-completion'";
        out += " ;;\n";
    }
    out +=
        "    esac\n"
        "    case $prev in\n"
        "        --load) COMPREPLY=($(compgen -W \"$values\" -- \"$cur\")); return ;;\n"
        "        --probe|--latency) COMPREPLY=($(compgen -W '" +
        probes +
        "' -- \"$cur\")); return ;;\n"
        "        --format|-f) case ${COMP_WORDS[1]} in\n"
        "            report) values='" +
        output_names(OutputUse::report, " ", " ") +
        "' ;;\n"
        "            compare) values='" +
        output_names(OutputUse::compare, " ", " ") +
        "' ;;\n"
        "            export) values='" +
        output_names(OutputUse::export_, " ", " ") +
        "' ;;\n"
        "            latency) values='" +
        output_names(OutputUse::latency, " ", " ") +
        "' ;;\n"
        "            help) values='man bash-completion' ;;\n"
        "            esac\n"
        "            COMPREPLY=($(compgen -W \"$values\" -- \"$cur\")); return ;;\n"
        "        --style) COMPREPLY=($(compgen -W '" +
        output_names(OutputUse::post, " ", " ") +
        "' -- \"$cur\")); return ;;\n"
        "        --config|--results|--workdir|--resume|--summary-json|--kernel-source|"
        "--kernel-config|--build-config|--latency-raw|--io-other-dir|--tar-source|-o)\n"
        "            COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
        "    esac\n"
        "    if [[ $cur == -* ]]; then\n"
        "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
        "    elif [ -n \"$values\" ]; then\n"
        "        COMPREPLY=($(compgen -W \"$values\" -- \"$cur\"))\n"
        "    else\n"
        "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        "    fi\n"
        "}\n"
        "complete -F _contest contest\n";
    return out;
}

int cmd_help(int argc, char** argv) {
    CommandLine cl;
    cl.name = "help";
    cl.usage = "contest help man|bash-completion  (or --format F)";
    cl.summary =
        "man: the manual page (roff); bash-completion: a bash completion script; both made "
        "from the option, load and probe tables (`make install` installs them)";
    std::string what;
    add_options(cl, {{"format", OptionScope::host, po::value(&what)->value_name("F"),
                      "man | bash-completion (also positional)"}});
    cl.positional.add("format", 1);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    if (what == "man")
        std::cout << man_page();
    else if (what == "bash-completion")
        std::cout << bash_completion();
    else
        throw UsageError("contest help: expected man or bash-completion" +
                         (what.empty() ? std::string() : ", not '" + printable(what) + "'"));
    return kExitOk;
}

}  // namespace contest
