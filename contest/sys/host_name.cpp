#include "contest/sys/host_name.h"

#include <pwd.h>
#include <unistd.h>

#include <climits>
#include <string>

namespace contest {

std::string host_name() {
    char name[HOST_NAME_MAX + 1] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return "";
    return name;
}

std::string login_name() {
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_name) return pw->pw_name;
    return std::to_string(::geteuid());
}

}  // namespace contest
