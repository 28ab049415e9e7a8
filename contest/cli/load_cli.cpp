#include "contest/cli/load_cli.h"

#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"
#include "loads/registry.h"

namespace contest {
namespace {

// Every distinct option of the loads, in contest's order, with the loads
// that take it.
struct OptionUse {
    const LoadOption* option;
    std::string loads;  // "ctar_load, xtar_load"
};

std::vector<OptionUse> option_uses() {
    std::vector<OptionUse> uses;
    for (const LoadInfo* l : load_registry()) {
        for (const LoadOption* o : l->options) {
            auto same = [&](const OptionUse& u) { return u.option->name == o->name; };
            if (auto it = std::find_if(uses.begin(), uses.end(), same); it != uses.end())
                it->loads += ", " + std::string(l->name);
            else
                uses.push_back({o, std::string(l->name)});
        }
    }
    return uses;
}

// A load option's value, checked while it is parsed (so a config file's
// error names its line, and "-1" or "" is refused at once, never taken as
// "not given"), then kept as text for the load to read.
class LoadOptionValue : public po::typed_value<std::string> {
  public:
    LoadOptionValue(const LoadOption& option, std::string* store)
        : po::typed_value<std::string>(store), option_(option) {}

    void xparse(boost::any& value_store, const std::vector<std::string>& tokens) const override {
        po::validators::check_first_occurrence(value_store);
        const std::string& token = po::validators::get_single_string(tokens);
        if (check_option_value(option_, token)) {
            std::string range = option_.kind == LoadOptionKind::text
                                    ? "'%canonical_option%' needs a value"
                                    : "'%canonical_option%' must be from " +
                                          number_text(option_.min) + " to " +
                                          number_text(option_.max) +
                                          (option_.whole ? " (whole)" : "") + ", not '%value%'";
            po::error_with_option_name e(range);
            e.set_substitute("value", token);
            throw e;
        }
        value_store = token;
    }

    std::string name() const override {
        const std::string base = po::typed_value<std::string>::name();
        if (option_.kind == LoadOptionKind::text) return base;
        return with_range(base, number_text(option_.min),
                          option_.max == 0 ? std::string("any") : number_text(option_.max));
    }

  private:
    const LoadOption& option_;
};

// "NAME=CMD" split at its first '='.
std::pair<std::string, std::string> name_and_command(const char* option, const std::string& spec) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
        throw UsageError(std::string(option) + " '" + spec + "': must be NAME=COMMAND");
    return {spec.substr(0, eq), spec.substr(eq + 1)};
}

void define_load_cmds(const std::vector<std::string>& specs) {
    for (const auto& spec : specs) {
        auto [name, command] = name_and_command("--load-cmd", spec);
        define_command_load(name, command);
    }
}

void set_load_cmd_units(const std::vector<std::string>& specs) {
    for (const auto& spec : specs) {
        auto [name, command] = name_and_command("--load-cmd-units", spec);
        set_command_load_units(name, command);
    }
}

}  // namespace

std::vector<TableOption> load_option_rows(LoadOptionText& text, OptionScope scope) {
    // clang-format off
    std::vector<TableOption> rows = {
        {"load-cmd", scope, checked(&text.load_cmds, define_load_cmds)->composing()->value_name("NAME=CMD"),
         "your own command as the load NAME (words, no shell; again for another)"},
        {"load-cmd-units", scope, checked(&text.load_cmd_units, set_load_cmd_units)->composing()->value_name("NAME=CMD"),
         "what counts NAME's work: CMD prints the work done so far, a number (Loads: its growth)"},
    };
    // clang-format on
    for (const auto& use : option_uses()) {
        const LoadOption& o = *use.option;
        std::string flags(o.name);
        if (o.short_name) flags += std::string(",") + o.short_name;
        std::string help = use.loads + ": " + std::string(o.help);
        if (!o.default_value.empty()) help += " (default " + std::string(o.default_value) + ")";
        std::string& value = text.values[std::string(o.name)];
        auto* semantic = new LoadOptionValue(o, &value);
        semantic->value_name(std::string(o.value_name));
        semantic->notifier(
            [&text, name = std::string(o.name)](const std::string&) { text.given.insert(name); });
        rows.emplace_back(flags.c_str(), scope, semantic, help);
    }
    return rows;
}

std::filesystem::path default_workdir() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::filesystem::path(x) / "contest";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::filesystem::path(h) / ".cache" / "contest";
    // Never a shared /tmp/contest another user could own or plant links in.
    return "/tmp/contest-" + std::to_string(::geteuid());
}

void finish_load_options(LoadOptions& lo, const LoadOptionText& text) {
    for (const auto& use : option_uses()) {
        auto it = text.values.find(use.option->name);
        if (it == text.values.end() || !text.given.contains(it->first)) continue;
        if (auto why = check_option_value(*use.option, it->second)) throw UsageError(*why);
        lo.set(use.option->name, it->second);
    }
}

}  // namespace contest
