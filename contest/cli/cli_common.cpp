#include "contest/cli/cli_common.h"

#include <algorithm>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>

#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/sys/unique_fd.h"

namespace contest {
namespace {

// One `name = value` line of a config file.
struct ConfigEntry {
    int line = 0;
    std::string key, value;
};

std::string_view trimmed(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// Boost.ProgramOptions builds an error's text by replacing each %name% in
// its template until none is left: a value or an option name that itself
// holds "%value%" or "%canonical_option%" makes that loop run for ever
// (`--runs=%value%` hung contest). The same text, each placeholder of the
// template replaced once, left to right, reading the error's fields.
struct OptionErrorText : po::error_with_option_name {
    static std::string of(const po::error& e) {
        const auto* named = dynamic_cast<const po::error_with_option_name*>(&e);
        if (!named) return e.what();  // a fixed text, nothing substituted
        auto values = named->*(&OptionErrorText::m_substitutions);
        values["canonical_option"] = named->get_option_name();
        values["prefix"] = (named->*(&OptionErrorText::get_canonical_option_prefix))();
        std::string text = named->m_error_template;
        // A missing value swaps a phrase of Boost's own for another.
        for (const auto& [name, phrase] : named->*(&OptionErrorText::m_substitution_defaults))
            if (values[name].empty())
                if (auto at = text.find(phrase.first); at != std::string::npos)
                    text.replace(at, phrase.first.size(), phrase.second);
        std::string out;
        std::size_t i = 0;
        while (i < text.size()) {
            const auto open = text.find('%', i);
            const auto close = open == std::string::npos ? open : text.find('%', open + 1);
            if (close == std::string::npos) break;
            const auto it = values.find(text.substr(open + 1, close - open - 1));
            if (it == values.end()) {
                out.append(text, i, close - i);
                i = close;
                continue;
            }
            out.append(text, i, open - i).append(it->second);
            i = close + 1;
        }
        return out.append(text, i);
    }
};

[[noreturn]] void config_error(const std::string& where, int line, const std::string& what) {
    throw UsageError(printable(where) + ":" + std::to_string(line) + ": " + printable(what));
}

// The entries of an INI text in order, with the section prefix applied;
// a line that is neither blank, a comment, a [section] nor `name = value`
// is refused naming its line.
std::vector<ConfigEntry> config_entries(std::string_view text, const std::string& where) {
    std::vector<ConfigEntry> entries;
    std::string prefix;
    int number = 0;
    while (!text.empty()) {
        const auto eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
        ++number;
        for (unsigned char c : line)
            if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
                config_error(where, number,
                             "a control character (" +
                                 printable(std::string(1, static_cast<char>(c))) +
                                 ") in the line: is this a config file?");
        line = trimmed(line.substr(0, line.find('#')));
        if (line.empty()) continue;
        if (line.front() == '[') {
            if (line.back() != ']' || trimmed(line.substr(1, line.size() - 2)).empty())
                config_error(where, number,
                             "expected a [section] name, not '" + std::string(line) + "'");
            prefix = std::string(trimmed(line.substr(1, line.size() - 2))) + ".";
            continue;
        }
        const auto eq = line.find('=');
        if (eq == std::string_view::npos)
            config_error(where, number, "expected 'name = value', not '" + std::string(line) + "'");
        const auto key = trimmed(line.substr(0, eq));
        if (key.empty()) config_error(where, number, "no option name before '='");
        entries.push_back(
            {number, prefix + std::string(key), std::string(trimmed(line.substr(eq + 1)))});
    }
    return entries;
}

po::parsed_options parsed(const po::options_description& options,
                          const std::vector<const ConfigEntry*>& entries) {
    po::parsed_options out(&options);
    for (const auto* e : entries) {
        out.options.emplace_back(e->key, std::vector<std::string>{e->value});
        out.options.back().original_tokens = {e->key, e->value};
    }
    return out;
}

}  // namespace

void check_text_or_json(const std::string& format) {
    if (format != "text" && format != "json") throw UsageError("--format must be text or json");
}

std::string option_error_text(const po::error& e) {
    return OptionErrorText::of(e);
}

void store_config_text(std::string_view text, const std::string& where,
                       const po::options_description& options, po::variables_map& vm) {
    const auto entries = config_entries(text, where);
    // Each line alone first, so that an unknown option, a bad value or an
    // option set twice is named with its line (Boost's own config parser
    // names no line).
    std::map<std::string, const ConfigEntry*> first_of;
    for (const auto& e : entries) {
        try {
            po::variables_map scratch;
            po::store(parsed(options, {&e}), scratch);
            if (auto [it, fresh] = first_of.emplace(e.key, &e); !fresh) {
                po::variables_map both;
                po::store(parsed(options, {it->second, &e}), both);
            }
        } catch (const po::multiple_occurrences&) {
            config_error(where, e.line,
                         "'" + e.key + "' is set already on line " +
                             std::to_string(first_of.at(e.key)->line));
        } catch (const po::error& error) {
            config_error(where, e.line, option_error_text(error));
        }
    }
    std::vector<const ConfigEntry*> all;
    for (const auto& e : entries) all.push_back(&e);
    try {
        po::store(parsed(options, all), vm);
    } catch (const po::error& error) {
        throw UsageError(printable(where) + ": " + printable(option_error_text(error)));
    }
}

void store_config_file(const std::string& path, const po::options_description& options,
                       po::variables_map& vm) {
    const std::string name = printable(path);
    // O_NONBLOCK: a FIFO named as the config must not hang the open.
    const UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    const int fd = file.get();
    if (fd < 0) throw UsageError("cannot read config file " + name + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        throw UsageError("cannot read config file " + name + ": " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw UsageError("config file " + name + " is a folder, not a file");
    if (!S_ISREG(st.st_mode))
        throw UsageError("config file " + name +
                         " is not a regular file (a device, pipe or socket)");
    const auto too_big = [&] {
        return UsageError("config file " + name + " is larger than " +
                          std::to_string(kMaxConfigBytes >> 20) + " MiB: is it a config file?");
    };
    if (static_cast<std::uintmax_t>(st.st_size) > kMaxConfigBytes) throw too_big();
    // Read at most one byte more than allowed: the file may grow meanwhile.
    std::string text(kMaxConfigBytes + 1, '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            throw UsageError("cannot read config file " + name + ": " + std::strerror(errno));
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    if (got > kMaxConfigBytes) throw too_big();
    text.resize(got);
    store_config_text(text, path, options, vm);
}

namespace {

std::vector<CommandFacts>* collected_facts = nullptr;

CommandFacts facts_of(const CommandLine& cl) {
    CommandFacts facts{cl.name, cl.usage, cl.summary, {}};
    for (const TableOption& row : command_rows(cl)) {
        const po::option_description* o = row.description.get();
        OptionFacts f;
        f.long_name = o->long_name();
        // "-k [ --label ]" when it has a short name, else "--label".
        const std::string shown = o->format_name();
        if (shown.size() > 1 && shown[0] == '-' && shown[1] != '-') f.short_name = shown[1];
        f.parameter = o->format_parameter();
        f.help = o->description();
        facts.options.push_back(std::move(f));
    }
    return facts;
}

}  // namespace

void collect_command_facts(std::vector<CommandFacts>* into) {
    collected_facts = into;
}

std::vector<TableOption> command_rows(const CommandLine& cl) {
    std::vector<TableOption> rows = cl.table;
    rows.emplace_back("help,h", OptionScope::host, new po::untyped_value(true), "show this help");
    if (cl.accepts_config)
        rows.emplace_back("config", OptionScope::host, po::value<std::string>()->value_name("FILE"),
                          "read options from an INI file (the command line wins)");
    return rows;
}

bool parse_command_line(CommandLine& cl, int argc, char** argv, po::variables_map& vm) {
    if (collected_facts) {
        collected_facts->push_back(facts_of(cl));
        return false;
    }
    const std::vector<TableOption> rows = command_rows(cl);
    // 100 columns: --help's width.
    po::options_description described("Options", 100), from_file;
    for (const TableOption& row : rows) {
        described.add(row.description);
        if (row.config == FromConfig::yes) from_file.add(row.description);
    }
    try {
        po::store(po::command_line_parser(argc, argv)
                      .options(described)
                      .positional(cl.positional)
                      .style(po::command_line_style::unix_style)
                      .run(),
                  vm);
    } catch (const po::error& e) {
        throw UsageError("contest " + cl.name + ": " + printable(option_error_text(e)));
    }
    if (vm.count("help")) {
        std::cout << "usage: " << cl.usage << "\n" << cl.summary << "\n\n" << described << "\n";
        return false;
    }
    if (cl.accepts_config && vm.count("config"))
        store_config_file(vm["config"].as<std::string>(), from_file, vm);
    try {
        po::notify(vm);
    } catch (const po::error& e) {
        throw UsageError("contest " + cl.name + ": " + printable(option_error_text(e)));
    }
    return true;
}

bool option_given(const po::variables_map& vm, const std::string& name, const std::string& value) {
    const auto it = vm.find(name);
    if (it == vm.end() || it->second.defaulted() || it->second.empty()) return false;
    if (value.empty()) return true;
    const auto* text = boost::any_cast<std::string>(&it->second.value());
    return text && *text == value;
}

void refuse_options_without_needs(const std::vector<TableOption>& table,
                                  const po::variables_map& vm) {
    for (const auto& o : table) {
        if (o.needs.empty() || !option_given(vm, o.description->long_name())) continue;
        const bool met = std::any_of(o.needs.begin(), o.needs.end(), [&](const std::string& need) {
            const auto eq = need.find('=');
            return eq == std::string::npos
                       ? option_given(vm, need)
                       : option_given(vm, need.substr(0, eq), need.substr(eq + 1));
        });
        if (!met)
            throw UsageError("--" + o.description->long_name() + " needs " + needs_text(o.needs));
    }
}

void add_options(CommandLine& cl, const std::vector<TableOption>& table) {
    cl.table.insert(cl.table.end(), table.begin(), table.end());
}

namespace {

// A number as text that reads back as the same number.
template <typename T>
std::optional<std::string> number_word(const boost::any& value) {
    const T* v = boost::any_cast<T>(&value);
    if (!v) return std::nullopt;
    return exact_text(*v);
}

template <typename... T>
std::optional<std::string> any_number_word(const boost::any& value) {
    std::optional<std::string> word;
    ((word = word ? word : number_word<T>(value)), ...);
    return word;
}

}  // namespace

std::vector<std::string> option_words(const po::option_description& o,
                                      const po::variable_value& v) {
    const std::string name = "--" + o.long_name();
    const boost::any& value = v.value();
    if (const bool* on = boost::any_cast<bool>(&value))
        return *on ? std::vector<std::string>{name} : std::vector<std::string>{};
    std::vector<std::string> values;
    if (const auto* text = boost::any_cast<std::string>(&value))
        values = {*text};
    else if (const auto* texts = boost::any_cast<std::vector<std::string>>(&value))
        values = *texts;
    else if (const auto* path = boost::any_cast<std::filesystem::path>(&value))
        values = {path->string()};
    else if (auto number = any_number_word<int, unsigned, long, unsigned long, long long,
                                           unsigned long long, double>(value))
        values = {*number};
    else
        throw std::logic_error(name + ": a value of a type option_words cannot write");
    std::vector<std::string> words;
    for (const auto& text : values) {
        if (!text.empty())
            words.push_back(name + "=" + text);
        else if (o.semantic()->min_tokens() > 0)
            words.insert(words.end(), {name, ""});
    }
    return words;
}

std::vector<std::string> delegated_words(const std::vector<TableOption>& table,
                                         const po::variables_map& vm) {
    std::vector<std::string> words;
    for (const auto& o : table) {
        if (!reaches_delegated(o.scope)) continue;
        const auto it = vm.find(o.description->long_name());
        if (it == vm.end() || it->second.defaulted() || it->second.empty()) continue;
        for (auto& w : option_words(*o.description, it->second)) words.push_back(std::move(w));
    }
    return words;
}

}  // namespace contest
