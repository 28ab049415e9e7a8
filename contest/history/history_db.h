#pragma once
// The results database (docs/history.md): every run contest saved, in a
// SQLite file beside the results by default or in a PostgreSQL database a
// lab shares, through SOCI, the one interface to both. Opening checks and
// migrates the schema (schema.h); every failure is one line naming the
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
    writing,  // a missing SQLite file is made
    reading,  // a missing SQLite file is a UsageError (nothing imported there yet)
};

class HistoryDb {
  public:
    // Connects, then checks and brings the schema to this binary's version.
    // UsageError: a file that is not a database or is corrupt, a schema
    // newer than this binary knows. EnvironmentError: a server that is down
    // or refuses the login, a database locked past kBusyTimeoutS.
    HistoryDb(const DbTarget& target, OpenFor mode);
    ~HistoryDb();
    HistoryDb(const HistoryDb&) = delete;
    HistoryDb& operator=(const HistoryDb&) = delete;

    soci::session& sql() { return *sql_; }
    const DbTarget& target() const { return target_; }
    bool postgresql() const { return target_.kind == DbKind::postgresql; }
    int schema_version() const { return version_; }

    // work in one transaction, committed when it returns and rolled back
    // when it throws. On SQLite it is BEGIN IMMEDIATE: a second writer waits
    // for the first (the busy timeout) before it reads, so its reads and
    // writes are one snapshot and never fail on the upgrade to a writer.
    // Its errors are the database's own: the caller's guarded() says them.
    void in_transaction(const std::function<void()>& work);

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
    [[noreturn]] void rethrow(const std::string& doing, const std::exception& e) const;
    void connect(OpenFor mode);
    // The migrations after the database's version, inside a transaction.
    void migrate(const std::function<int()>& read_version,
                 const std::function<void(int)>& refuse_newer);

    DbTarget target_;
    std::unique_ptr<soci::session> sql_;
    int version_ = 0;
};

}  // namespace contest::history
