#include "contest/history/history_db.h"

#include <soci/soci.h>

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "contest/history/pg_uri.h"
#include "contest/history/schema.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

// The two backends' factories, as libsoci_sqlite3 and libsoci_postgresql
// export them (soci-sqlite3.h and soci-postgresql.h declare the same). Their
// headers are not included: they include sqlite3.h and libpq-fe.h, which
// libsoci-dev does not bring, and contest needs nothing else of them.
extern "C" {
soci::backend_factory const* factory_sqlite3();
soci::backend_factory const* factory_postgresql();
}

namespace contest::history {

namespace fs = std::filesystem;

namespace {

// SOCI's text of a database error, as one line: its prefix naming the
// backend's function and its suffix quoting the statement dropped, the lines
// of libpq's messages joined.
std::string db_error_line(std::string text) {
    for (const char* cut : {" while preparing \"", " while executing \"", " while fetching"})
        if (auto at = text.find(cut); at != std::string::npos) text.erase(at);
    if (auto at = text.find("_backend::"); at != std::string::npos)
        if (auto colon = text.find(": ", at); colon != std::string::npos) text.erase(0, colon + 2);
    std::string line;
    for (char c : text) {
        const bool blank = c == '\n' || c == '\t' || c == '\r' || c == ' ';
        if (!blank)
            line += c;
        else if (!line.empty() && line.back() != ' ')
            line += ' ';
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == '.')) line.pop_back();
    return printable(line);
}

// What the machine did, not what the file holds: waited too long for
// another writer, a full disk, a file it may not open or write.
bool sqlite_environment_error(const std::string& why) {
    for (const char* e : {"locked", "busy", "disk is full", "unable to open", "readonly",
                          "I/O error", "Permission denied", "out of memory"})
        if (why.find(e) != std::string::npos) return true;
    return false;
}

// A SQLite database is a regular file, or nothing yet: a folder, a device,
// a FIFO or a socket is refused before SQLite opens it (as root, /dev/null
// would be opened and /dev/null-journal made), and so is a symbolic link to
// anything but a regular file, or to nothing (SQLite would make its target).
void refuse_other_than_a_file(const fs::path& file) {
    struct stat own {};
    if (::lstat(file.c_str(), &own) != 0) return;  // nothing there yet: made on writing
    struct stat target = own;
    const bool link = S_ISLNK(own.st_mode);
    if (link && ::stat(file.c_str(), &target) != 0)
        throw UsageError(printable(file.string()) + ": a symbolic link to nothing (" +
                         std::strerror(errno) + "), not a history database file");
    if (S_ISREG(target.st_mode)) return;
    const char* what = S_ISDIR(target.st_mode)    ? "a folder"
                       : S_ISCHR(target.st_mode)  ? "a character device"
                       : S_ISBLK(target.st_mode)  ? "a block device"
                       : S_ISFIFO(target.st_mode) ? "a FIFO"
                       : S_ISSOCK(target.st_mode) ? "a socket"
                                                  : "not a regular file";
    throw UsageError(printable(file.string()) + ": " + (link ? "a symbolic link to " : "") + what +
                     ", not a history database file");
}

}  // namespace

DbTarget db_target(const std::string& given, const fs::path& results_dir) {
    DbTarget t;
    if (is_postgresql_uri(given)) {
        t.kind = DbKind::postgresql;
        t.where = given;
        t.shown = printable(without_password(given));
        return t;
    }
    t.where = given.empty() ? (results_dir / kDefaultDbFile).string() : given;
    t.shown = printable(t.where);
    return t;
}

HistoryDb::HistoryDb(const DbTarget& target, OpenFor mode) : target_(target) {
    connect(mode);
    SchemaState state = guarded("reading its schema version", [&] { return read_schema(); });
    if (state.version == 0 && !postgresql()) {
        int tables = 0;
        guarded("reading its tables", [&] {
            *sql_ << "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'", soci::into(tables);
        });
        // Another contest may have made the schema since the version was
        // read (two opening a new file at once): its tables and its version
        // come in one commit, so a second look tells the two apart.
        if (tables > 0)
            state = guarded("reading its schema version", [&] { return read_schema(); });
        if (tables > 0 && state.version == 0)
            throw UsageError(target_.shown +
                             ": a SQLite database of something else (tables without contest's "
                             "schema_version): not a contest history database");
    }
    refuse_unusable(state, mode);
    version_ = state.version;
    if (mode == OpenFor::reading) {
        // A reader never changes the schema (a lab's older contests go on
        // with it): it reads an older one as it is.
        if (version_ == 0)
            throw UsageError("no contest history in " + target_.shown +
                             " yet (contest history import PATH... makes it)");
        return;
    }
    if (version_ >= current_schema_version()) return;
    guarded("bringing its schema to version " + std::to_string(current_schema_version()),
            [&] { in_transaction([&] { migrate(); }); });
}

HistoryDb::~HistoryDb() = default;

HistoryDb::SchemaState HistoryDb::read_schema() {
    SchemaState state;
    int count = 0;
    if (postgresql())
        *sql_ << "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = "
                 "'schema_version' AND table_schema = current_schema()",
            soci::into(count);
    else
        *sql_ << "SELECT COUNT(*) FROM sqlite_master WHERE name = 'schema_version'",
            soci::into(count);
    if (count == 0) return state;
    soci::indicator ind = soci::i_ok;
    *sql_ << "SELECT MAX(version) FROM schema_version", soci::into(state.version, ind);
    if (ind != soci::i_ok) state.version = 0;
    // A migration's row without them (put there by hand, or by a contest
    // that did not record them) is read as needing a contest that knows it.
    if (state.version >= kOldestUsersSince)
        *sql_ << "SELECT MAX(COALESCE(oldest_reader, version)), "
                 "MAX(COALESCE(oldest_writer, version)) FROM schema_version",
            soci::into(state.oldest_reader), soci::into(state.oldest_writer);
    return state;
}

void HistoryDb::refuse_unusable(const SchemaState& state, OpenFor mode) const {
    const int known = current_schema_version();
    if (state.version <= known) return;
    const bool reading = mode == OpenFor::reading;
    const int oldest = reading ? state.oldest_reader : state.oldest_writer;
    if (oldest > 0 && oldest <= known) return;
    throw UsageError(target_.shown + ": its schema is version " + std::to_string(state.version) +
                     ", newer than this contest's (" + std::to_string(known) + "), and " +
                     (reading ? "read" : "written") + " right only by a contest of version " +
                     std::to_string(oldest > 0 ? oldest : state.version) +
                     " or later: a newer contest wrote it; use that one");
}

void HistoryDb::migrate() {
    // Two contests starting on a new database: the second waits here
    // (SQLite's write lock, PostgreSQL's lock on the key below), then finds
    // the first's schema and applies nothing again.
    if (postgresql()) *sql_ << "SELECT pg_advisory_xact_lock(5701057)";
    *sql_ << "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)";
    const SchemaState state = read_schema();
    refuse_unusable(state, OpenFor::writing);
    int v = state.version;
    for (const Migration& m : migrations()) {
        if (m.version <= v) continue;
        for (const char* statement : m.statements)
            *sql_ << schema_statement(statement, postgresql());
        if (m.version >= kOldestUsersSince)
            *sql_ << "INSERT INTO schema_version (version, oldest_reader, oldest_writer) "
                     "VALUES (:v, :r, :w)",
                soci::use(m.version), soci::use(m.oldest_reader), soci::use(m.oldest_writer);
        else
            *sql_ << "INSERT INTO schema_version (version) VALUES (:v)", soci::use(m.version);
        v = m.version;
    }
    version_ = v;
}

void HistoryDb::connect(OpenFor mode) {
    if (postgresql()) {
        const std::string password = pg_uri_password(target_.where).value_or("");
        try {
            guarded("cannot connect", [&] {
                sql_ = std::make_unique<soci::session>(*factory_postgresql(),
                                                       soci_connect_string(target_.where));
                // Notices (a table that already exists) are not contest's to print.
                *sql_ << "SET client_min_messages TO WARNING";
            });
        } catch (const EnvironmentError& e) {
            // libpq does not quote a password back, but nothing it says
            // may carry one out.
            std::string line = e.what();
            for (std::size_t at; !password.empty() && (at = line.find(password)) != line.npos;)
                line.replace(at, password.size(), "***");
            throw EnvironmentError(line);
        }
        return;
    }
    guarded("cannot connect", [&] {
        const fs::path file = target_.where;
        refuse_other_than_a_file(file);
        std::error_code ec;
        if (!fs::exists(fs::symlink_status(file, ec))) {
            if (mode == OpenFor::reading)
                throw UsageError("no history database at " + target_.shown +
                                 " (contest history import PATH... makes one)");
            if (file.has_parent_path()) fs::create_directories(file.parent_path(), ec);
            if (ec == std::errc::not_a_directory || ec == std::errc::file_exists)
                throw UsageError(target_.shown + ": its folder " +
                                 printable(file.parent_path().string()) + " is not a folder");
        }
        // SOCI's connection string quotes a value in double quotes; a path
        // holding one cannot be said in it.
        if (target_.where.find('"') != std::string::npos)
            throw UsageError(target_.shown + ": a database path may not hold '\"'");
        sql_ = std::make_unique<soci::session>(
            *factory_sqlite3(),
            "db=\"" + target_.where + "\" timeout=" + std::to_string(kBusyTimeoutS));
        // WAL: readers go on while one contest writes, and a writer that
        // dies leaves the database as its last commit had it. SQLite may
        // answer the change of journal mode "locked" at once, its busy
        // handler not asked, while another contest makes a new file's
        // schema: asked again until the busy timeout (two imports into a
        // new file at once met it).
        const auto give_up_at =
            std::chrono::steady_clock::now() + std::chrono::seconds(kBusyTimeoutS);
        for (;;) {
            try {
                *sql_ << "PRAGMA journal_mode = WAL";
                break;
            } catch (const std::exception& e) {
                const std::string why = e.what();
                const bool busy = why.find("locked") != std::string::npos ||
                                  why.find("busy") != std::string::npos;
                if (!busy || std::chrono::steady_clock::now() > give_up_at) throw;
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        }
        *sql_ << "PRAGMA foreign_keys = ON";
    });
}

// db_session.h's (not included here: it includes this unit's header).
soci::session& session_of(HistoryDb& db) {
    return db.sql();
}

void HistoryDb::in_transaction(const std::function<void()>& work) {
    *sql_ << (postgresql() ? "BEGIN" : "BEGIN IMMEDIATE");
    try {
        work();
        *sql_ << "COMMIT";
    } catch (...) {
        try {
            *sql_ << "ROLLBACK";
        } catch (...) {
            // The connection is gone: the server rolls back on its own.
        }
        throw;
    }
}

bool HistoryDb::answers() noexcept {
    try {
        int one = 0;
        *sql_ << "SELECT 1", soci::into(one);
        return one == 1;
    } catch (...) {
        return false;
    }
}

void HistoryDb::rethrow(const std::string& doing, const std::exception& e) const {
    if (dynamic_cast<const UsageError*>(&e) || dynamic_cast<const EnvironmentError*>(&e) ||
        dynamic_cast<const Interrupted*>(&e))
        throw;
    const std::string why = db_error_line(e.what());
    const std::string line = target_.shown + ": " + doing + ": " + why;
    if (postgresql() || sqlite_environment_error(why)) throw EnvironmentError(line);
    throw UsageError(line);
}

}  // namespace contest::history
