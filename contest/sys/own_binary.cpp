#include "contest/sys/own_binary.h"

#include <system_error>

#include "contest/sys/errors.h"

namespace contest {

namespace fs = std::filesystem;

void copy_own_binary(const fs::path& to) {
    // /proc/self/exe opened, not read as a link: it is the running binary's
    // own file even once a relink has removed or replaced it (the link then
    // reads "... (deleted)", or names the new build).
    std::error_code ec;
    fs::copy_file("/proc/self/exe", to, fs::copy_options::overwrite_existing, ec);
    if (ec)
        throw EnvironmentError("cannot copy contest's own binary to " + to.string() + ": " +
                               ec.message());
}

}  // namespace contest
