#include "contest/cli/db_password.h"

#include <cstdlib>
#include <cstring>
#include <optional>
#include <ostream>
#include <string>

#include "contest/history/pg_uri.h"
#include "contest/sys/child_environment.h"
#include "contest/sys/errors.h"

namespace contest {

namespace {

bool moved = false;

}  // namespace

bool move_db_password_to_environment(int argc, char** argv, std::ostream& warn) {
    moved = false;
    std::optional<std::string> password;
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        std::size_t uri_at = 0;
        if (!history::is_postgresql_uri(word)) {
            const std::size_t eq = word.find('=');
            if (!word.starts_with("--") || eq == std::string::npos ||
                !history::is_postgresql_uri(word.substr(eq + 1)))
                continue;
            uri_at = eq + 1;
        }
        const std::string uri = word.substr(uri_at);
        const auto given = history::pg_uri_password(uri);
        if (!given) continue;
        if (password && *password != *given)
            throw UsageError(
                "two PostgreSQL URIs with different passwords: give the password in ~/.pgpass "
                "or a service file instead (docs/history.md)");
        password = given;
        const std::string clean = word.substr(0, uri_at) + history::without_password(uri);
        // The argument's own bytes, which /proc/PID/cmdline shows: the URI
        // without the password when it fits (it does when only the password's
        // bytes were taken out), else nothing; padded with NULs.
        const std::size_t room = std::strlen(argv[i]);
        if (clean.size() <= room) {
            std::memcpy(argv[i], clean.c_str(), clean.size());
            std::memset(argv[i] + clean.size(), 0, room - clean.size());
        } else {
            std::memset(argv[i], 0, room);
            argv[i] = ::strdup(clean.c_str());  // kept to the end, as argv is
        }
    }
    if (!password) return false;
    // For contest's libpq and the contests it starts alone: no load, workload,
    // probe or guest is given it (sys/child_environment.h).
    set_for_contests_only("PGPASSWORD", *password);
    warn << "contest: warning: --db's URI holds a password, which every user of this machine "
            "can read in its process list; contest took it out of its words and passes it on in "
            "PGPASSWORD: keep it in ~/.pgpass, PGPASSFILE, PGPASSWORD or a service file "
            "instead (docs/history.md)\n";
    moved = true;
    return true;
}

bool db_password_moved_to_environment() {
    return moved;
}

}  // namespace contest
