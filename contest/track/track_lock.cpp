#include "contest/track/track_lock.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

#include "contest/history/pg_uri.h"
#include "contest/sys/errors.h"
#include "contest/sys/host_name.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"
#include "contest/sys/unique_fd.h"

namespace contest::track {

namespace fs = std::filesystem;

namespace {

std::string env_or(const char* name, const std::string& otherwise) {
    const char* value = std::getenv(name);
    return value && *value ? value : otherwise;
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// A Unix socket's folder by its real path (/var/run/postgresql is
// /run/postgresql); a host name as it is, in lower case.
std::string host_identity(const std::string& host) {
    if (host.empty() || host.front() != '/') return lower(host);
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(host, ec);
    return ec ? host : real.string();
}

}  // namespace

std::string this_machine() {
    std::ifstream in("/etc/machine-id");
    std::string id;
    if (in && std::getline(in, id) && !trim_blanks(id).empty()) return trim_blanks(id);
    const std::string name = host_name();
    return name.empty() ? "?" : name;
}

std::string postgresql_identity(const std::string& uri) {
    // libpq's own reading of the URI (pg_uri.h): the query's host=, port=,
    // user= and dbname= over the URI's parts, as libpq takes them.
    std::map<std::string, std::string> key;
    for (const auto& [name, value] : history::pg_uri_options(uri)) key[name] = value;
    const auto given = [&](const char* name, const char* env, const std::string& otherwise) {
        return !key[name].empty() ? key[name] : env_or(env, otherwise);
    };
    const std::string user = given("user", "PGUSER", login_name());
    return "postgresql host=" + host_identity(given("host", "PGHOST", "/run/postgresql")) +
           " port=" + given("port", "PGPORT", "5432") +
           " dbname=" + given("dbname", "PGDATABASE", user) + " user=" + user;
}

std::string database_identity(const history::DbTarget& db) {
    if (db.kind == history::DbKind::postgresql) return postgresql_identity(db.where);
    const fs::path file = fs::absolute(db.where);
    std::error_code ec;
    const fs::path folder = fs::weakly_canonical(file.parent_path(), ec);
    return "sqlite " + ((ec ? file.parent_path() : folder) / file.filename()).string();
}

std::string track_lock_name(const std::string& machine, const fs::path& tree,
                            const history::DbTarget& db) {
    std::error_code ec;
    const fs::path real_tree = fs::weakly_canonical(fs::absolute(tree), ec);
    const std::string key =
        machine + "\n" + (ec ? tree : real_tree).string() + "\n" + database_identity(db);
    return "track-" + sha256_hex(key).substr(0, 24) + ".lock";
}

fs::path machine_lock_folder() {
    // /run/lock where it is root's and sticky (Debian's, a tmpfs cleared at
    // boot), else /tmp.
    struct stat run_lock {};
    const bool run_lock_fit = ::lstat("/run/lock", &run_lock) == 0 && S_ISDIR(run_lock.st_mode) &&
                              run_lock.st_uid == 0 && (run_lock.st_mode & S_ISVTX);
    return shared_lock_folder(run_lock_fit ? "/run/lock/contest" : "/tmp/contest-locks");
}

fs::path shared_lock_folder(const fs::path& folder) {
    if (::mkdir(folder.c_str(), 01777) == 0)
        (void)::chmod(folder.c_str(), 01777);  // the umask took some of it
    else if (errno != EEXIST)
        throw EnvironmentError("cannot make the folder of track locks " + folder.string() + ": " +
                               std::strerror(errno));
    // Root takes over a folder a user made first (a user's track before
    // root's unit): opened without following a link, checked to be the
    // folder at the path, and made root's, which nobody else can then
    // rename or replace in the sticky parent.
    struct stat st {};
    if (::geteuid() == 0 && ::lstat(folder.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
        st.st_uid != 0) {
        const UniqueFd dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        struct stat opened {};
        if (dir.get() >= 0 && ::fstat(dir.get(), &opened) == 0 && opened.st_dev == st.st_dev &&
            opened.st_ino == st.st_ino) {
            (void)!::fchown(dir.get(), 0, 0);
            (void)!::fchmod(dir.get(), 01777);
        }
    }
    // Not a link, and only root's or this user's: in a folder every user
    // can write, another's folder (or a link to one) would let them put
    // what they like where root opens its locks. In a sticky parent owned by
    // root, nobody else can rename or remove it once checked.
    if (::lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw EnvironmentError("the folder of track locks " + folder.string() +
                               " is not a folder (a link?): remove it");
    if (st.st_uid != 0 && st.st_uid != ::geteuid())
        throw EnvironmentError("the folder of track locks " + folder.string() +
                               " is owned by uid " + std::to_string(st.st_uid) +
                               ", neither root nor this user: remove it");
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
        throw EnvironmentError("the folder of track locks " + folder.string() +
                               " is writable by others and not sticky: chmod +t it");
    return folder;
}

std::optional<TrackLock> TrackLock::try_take(const fs::path& file) {
    auto lock = FileLock::try_take(file, 0666);
    if (!lock) return std::nullopt;
    return TrackLock(std::move(*lock), file);
}

TrackLock::~TrackLock() {
    if (file_.empty()) return;
    std::error_code ec;
    fs::remove(file_, ec);  // another user's file in the sticky folder stays: no matter
}

}  // namespace contest::track
