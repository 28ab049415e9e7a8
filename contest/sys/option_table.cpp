#include "contest/sys/option_table.h"

namespace contest {

std::string with_range(std::string name, const std::string& min, const std::string& max) {
    const std::string range = " (" + min + " to " + max + ")";
    const auto default_at = name.find(" (=");
    return name.insert(default_at == std::string::npos ? name.size() : default_at, range);
}

void as_prefixed_option(const std::string& prefix, const std::function<void()>& check) {
    try {
        check();
    } catch (const UsageError& e) {
        const std::string why = e.what();
        // "latency-": --latency and --latency-* are the prefix's own.
        const std::string own = "--" + prefix.substr(0, prefix.find_last_not_of('-') + 1);
        if (prefix.empty() || !why.starts_with("--") || why.starts_with(own)) throw;
        throw UsageError("--" + prefix + why.substr(2));
    }
}

TableOption::TableOption(const char* flags, OptionScope scope, const po::value_semantic* value,
                         const std::string& help, FromConfig config)
    : description(new po::option_description(flags, value, help.c_str())),
      scope(scope),
      config(config) {}

namespace {

// One of Needs::any_of as the user writes it: "kernel" is --kernel,
// "runs=auto" is --runs auto.
std::string need_words(const std::string& need) {
    const auto eq = need.find('=');
    if (eq == std::string::npos) return "--" + need;
    return "--" + need.substr(0, eq) + " " + need.substr(eq + 1);
}

// "--boot, --kernel: ", said before the option's own help.
std::string needs_prefix(const std::vector<std::string>& needs) {
    std::string prefix;
    for (const auto& need : needs) prefix += (prefix.empty() ? "" : ", ") + need_words(need);
    return prefix.empty() ? "" : prefix + ": ";
}

}  // namespace

TableOption::TableOption(const char* flags, OptionScope scope, Needs needs,
                         const po::value_semantic* value, const std::string& help,
                         FromConfig config)
    : TableOption(flags, scope, value, needs_prefix(needs.any_of) + help, config) {
    this->needs = std::move(needs.any_of);
}

std::string needs_text(const std::vector<std::string>& needs) {
    std::string text;
    for (std::size_t i = 0; i < needs.size(); ++i)
        text += (i == 0 ? "" : i + 1 == needs.size() ? " or " : ", ") + need_words(needs[i]);
    return text;
}

}  // namespace contest
