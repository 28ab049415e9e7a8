#pragma once
// The results database (docs/history.md): every run contest saved, in a
// SQLite file beside the results by default or in a PostgreSQL database a
// lab shares, through SOCI, the one interface to both. Opening checks the
// schema (schema.h), and a writer migrates it; every failure is one line naming the
// database, and every write is one transaction, so a failed import leaves
// nothing half-written.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace soci {
class session;
}

namespace contest::history {

enum class DbKind { sqlite, postgresql };

struct DbTarget {
    DbKind kind = DbKind::sqlite;
    std::string where;  // SQLite: the file; PostgreSQL: the connection URI, as libpq takes it
    std::string shown;  // for messages: the file, or the URI without its password
};

// The SQLite file `--db` names when it is not given: beside the result files.
inline constexpr const char* kDefaultDbFile = "history.sqlite";
// How long a writer waits for another one's transaction on SQLite.
inline constexpr int kBusyTimeoutS = 60;

// --db as given: "postgresql://..." or "postgres://..." is a PostgreSQL
// database, anything else a SQLite file; "" is results_dir/history.sqlite.
// UsageError: a PostgreSQL URI libpq cannot read (pg_uri.h).
DbTarget db_target(const std::string& given, const std::filesystem::path& results_dir);

enum class OpenFor {
    // A missing SQLite file is made, an older schema brought to this
    // binary's version; a newer one written as it is when its migrations
    // allow a contest of this version to write it (schema.h).
    writing,
    // Nothing changed: an older schema read as it is (schema_version()
    // says which columns a reader may select), a newer one when its
    // migrations allow this version to read it. A missing SQLite file, or
    // a database without contest's schema yet, is a UsageError (nothing
    // imported there yet).
    reading,
};

class HistoryDb {
  public:
    // Connects, then checks the schema, and brings it to this binary's
    // version when writing. UsageError: a file that is not a database or is
    // corrupt, a newer schema that a contest of this version may not read
    // (or write). EnvironmentError: a server that is down
    // or refuses the login, a database locked past kBusyTimeoutS.
    HistoryDb(const DbTarget& target, OpenFor mode);
    ~HistoryDb();
    HistoryDb(const HistoryDb&) = delete;
    HistoryDb& operator=(const HistoryDb&) = delete;

    const DbTarget& target() const { return target_; }
    bool postgresql() const { return target_.kind == DbKind::postgresql; }
    // The database's version: below this binary's only when reading.
    int schema_version() const { return version_; }

    // work in one transaction, committed when it returns and rolled back
    // when it throws. On SQLite it is BEGIN IMMEDIATE: a second writer waits
    // for the first (the busy timeout) before it reads, so its reads and
    // writes are one snapshot and never fail on the upgrade to a writer.
    // Its errors are the database's own: the caller's guarded() says them.
    void in_transaction(const std::function<void()>& work);

    // Whether the database still answers a query (after an error: was it
    // the statement's, or is the connection gone?).
    bool answers() noexcept;

    // Any database error met while `doing` as one UsageError or
    // EnvironmentError line naming the database (fail_text's).
    template <typename F>
    auto guarded(const std::string& doing, F&& f) -> decltype(f()) {
        try {
            return f();
        } catch (const std::exception& e) {
            rethrow(doing, e);
        }
    }

  private:
    // Every statement against the history's tables is history/'s own
    // (db_session.h): the robot, the commands and the tests use the
    // functions history/ gives, not SQL of their own.
    friend soci::session& session_of(HistoryDb& db);
    soci::session& sql() { return *sql_; }
    [[noreturn]] void rethrow(const std::string& doing, const std::exception& e) const;
    void connect(OpenFor mode);
    struct SchemaState {
        int version = 0;  // 0: no schema yet
        // The oldest version that reads, and writes, it right (schema.h);
        // 0 before version kOldestUsersSince, which every contest reads.
        int oldest_reader = 0, oldest_writer = 0;
    };
    SchemaState read_schema();
    // UsageError when a contest of this version may not use the database
    // so (its schema newer, and its migrations say so).
    void refuse_unusable(const SchemaState& state, OpenFor mode) const;
    // The migrations after the database's version, inside a transaction.
    void migrate();

    DbTarget target_;
    std::unique_ptr<soci::session> sql_;
    int version_ = 0;
};

}  // namespace contest::history
