#pragma once
// The lock that lets one contest take a track of one tree into one database
// on one machine (docs/track.md): keyed by what makes two tracks the same
// track, however they were started (their folders, their --workdir, root's
// unit or a user's shell, `postgres://` or `postgresql://`), in a folder of
// the machine's that every user shares. Hosts of a fleet tracking the same
// branch at the same path into one database are each a track of their own:
// the machine is part of the key.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "contest/history/history_db.h"
#include "contest/sys/file_lock.h"

namespace contest::track {

// This machine: its /etc/machine-id, else its host name.
std::string this_machine();

// The database a target names, spelled one way: SQLite, the file's real
// path (its folder's, resolved, and its name, so a file not made yet has the
// same identity as once made); PostgreSQL, postgresql_identity's.
std::string database_identity(const history::DbTarget& db);

// A PostgreSQL connection URI as the server, port, database and user it
// reaches: "postgres://" and "postgresql://" alike, a query's host=, port=,
// user= and dbname= over the URI's own, libpq's defaults for what is left
// out (PGHOST, PGPORT, PGUSER, PGDATABASE; the Unix socket folder, 5432, the
// login name, the user's name), percent-escapes decoded, the host in lower
// case, a password and every other option left out. One function, so the
// URI's parser can be swapped for libpq's own.
std::string postgresql_identity(const std::string& uri);

// The lock's file name: a hash of the machine, the tree's real path and the
// database's identity.
std::string track_lock_name(const std::string& machine, const std::filesystem::path& tree,
                            const history::DbTarget& db);

// The machine's folder for track locks, shared by root and every user
// (/run/lock/contest, else /tmp/contest-locks): made sticky and writable by
// all when missing (as /tmp is), and taken only when it is a folder (no
// link) owned by root or by this user, sticky if others can write it.
// EnvironmentError naming it otherwise.
std::filesystem::path machine_lock_folder();
// The same for `folder` (in a sticky folder of root's): made, taken over by
// root when a user made it first, checked.
std::filesystem::path shared_lock_folder(const std::filesystem::path& folder);

// A lock in machine_lock_folder(), held while this lives; its file is
// readable and writable by every user (a user's track and root's must each
// be able to open the other's) and removed by its holder at the end, so
// the machine's folder keeps no file of a track that ended.
class TrackLock {
  public:
    // The lock, or nothing when another contest holds it.
    static std::optional<TrackLock> try_take(const std::filesystem::path& file);
    TrackLock(TrackLock&& other) noexcept
        : lock_(std::move(other.lock_)), file_(std::exchange(other.file_, {})) {}
    TrackLock& operator=(TrackLock&&) = delete;
    ~TrackLock();

  private:
    TrackLock(FileLock lock, std::filesystem::path file)
        : lock_(std::move(lock)), file_(std::move(file)) {}
    FileLock lock_;
    std::filesystem::path file_;
};

}  // namespace contest::track
