#pragma once
// The results database's schema, as numbered migrations (docs/history.md,
// "Schema"): a database at version N is brought to this binary's version by
// the migrations after N, each in the transaction that records its number in
// schema_version. A database at a version above the last here was written
// by a newer contest: each migration records with its number the oldest
// contest (by the schema version it knows) that still reads it right and
// the oldest that still writes it right, so a newer migration that only
// adds a column with a default, an index or a table nothing older refers to
// leaves older contests reading and writing; one that changes what is
// there locks them out, in one line, rather than letting them read or
// write it wrongly.
#include <span>
#include <string>
#include <vector>

namespace contest::history {

struct Migration {
    int version;  // the schema's version once applied: 1, 2, ...
    // Statements in the dialect both databases share; "{id}" stands for the
    // column type of a generated key and "{real}" for a double, which the
    // two spell differently (schema_statement).
    std::vector<const char*> statements;
    // The oldest schema version a contest may know and still read, and
    // still write, a database this migration was applied to: 1 for one
    // that only adds (what an older contest does not select or insert gets
    // its default, and nothing it deletes is referred to); the migration's
    // own version for one that changes what is there.
    int oldest_reader = 1, oldest_writer = 1;
};

// The versions since which a column or table is there: a reader selects
// only what the database it reads has (reading never migrates).
inline constexpr int kFileContentSince = 3;  // files.content
inline constexpr int kOldestUsersSince = 5;  // schema_version.oldest_reader, oldest_writer

// Every migration, in order; the last one's version is the binary's.
std::span<const Migration> migrations();
int current_schema_version();

// A migration's statement in one database's words.
std::string schema_statement(const char* statement, bool postgresql);

}  // namespace contest::history
