#pragma once
// The results database's schema, as numbered migrations (docs/history.md,
// "Schema"): a database at version N is brought to this binary's version by
// the migrations after N, each in the transaction that records its number in
// schema_version. A database at a version above the last here was written
// by a newer contest, and is refused rather than read wrongly.
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
};

// Every migration, in order; the last one's version is the binary's.
std::span<const Migration> migrations();
int current_schema_version();

// A migration's statement in one database's words.
std::string schema_statement(const char* statement, bool postgresql);

}  // namespace contest::history
