#include "contest/sys/child_environment.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "contest/sys/errors.h"

extern char** environ;

namespace contest {
namespace {

bool inherited_from_outer_make(std::string_view name) {
    return name == "MAKEFLAGS" || name == "MFLAGS" || name == "MAKELEVEL" ||
           name == "MAKEOVERRIDES";
}

// The variables set for the contests alone, each with the value contest's
// environment held before (none: it held none). Set at the start, before
// any child is started.
std::vector<std::pair<std::string, std::optional<std::string>>>& for_contests_only() {
    static std::vector<std::pair<std::string, std::optional<std::string>>> set;
    return set;
}

const std::optional<std::string>* value_before(std::string_view name) {
    for (const auto& [n, before] : for_contests_only())
        if (n == name) return &before;
    return nullptr;
}

}  // namespace

void set_for_contests_only(const std::string& name, const std::string& value) {
    if (!value_before(name)) {
        const char* before = std::getenv(name.c_str());
        for_contests_only().emplace_back(
            name, before ? std::optional<std::string>(before) : std::nullopt);
    }
    if (::setenv(name.c_str(), value.c_str(), 1) != 0)
        throw EnvironmentError("cannot set " + name + ": " + std::strerror(errno));
}

std::vector<std::string> child_environment(const std::vector<std::string>& overrides,
                                           bool to_contest) {
    auto overridden = [&](std::string_view name) {
        for (const auto& o : overrides)
            if (o.size() > name.size() && o.starts_with(name) && o[name.size()] == '=') return true;
        return false;
    };
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string_view kv(*e);
        const std::string_view name = kv.substr(0, kv.find('='));
        if (inherited_from_outer_make(name) || overridden(name)) continue;
        if (const auto* before = to_contest ? nullptr : value_before(name)) {
            if (*before) env.push_back(std::string(name) + "=" + **before);
            continue;
        }
        env.emplace_back(kv);
    }
    env.insert(env.end(), overrides.begin(), overrides.end());
    return env;
}

bool is_contest_program(const std::filesystem::path& program) {
    struct stat self {
    }, other{};
    return ::stat("/proc/self/exe", &self) == 0 && ::stat(program.c_str(), &other) == 0 &&
           self.st_dev == other.st_dev && self.st_ino == other.st_ino;
}

}  // namespace contest
