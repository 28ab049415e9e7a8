#pragma once
// A PostgreSQL URI (postgresql://... or postgres://...) as libpq itself reads
// it (PQconninfoParse): the one parser of it in contest, so what contest
// hides as the password is what libpq would send as one, whatever the
// password holds ('?', '@', '%xx', a password=... in the query).
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace contest::history {

// libpq's keyword and value, in libpq's order, of each option the URI sets.
using PgOptions = std::vector<std::pair<std::string, std::string>>;

// How long a connection may take to be made, in seconds, when the URI does
// not say (libpq's connect_timeout): a server that never answers is an
// error after this, not a wait for ever.
inline constexpr int kPgConnectTimeoutS = 10;

bool is_postgresql_uri(const std::string& text);

// text with each byte but a letter, a digit and -._~ written %XX: a value as
// a URI holds it, whatever it is (libpq reads a raw '@', '/', '&' or '='
// as the URI's own).
std::string uri_percent_encoded(const std::string& text);

// The options the URI sets. UsageError for one libpq cannot read: one line,
// libpq's reason without the text it quotes (it may be the password).
PgOptions pg_uri_options(const std::string& uri);

// The URI's password, if it gives one.
std::optional<std::string> pg_uri_password(const std::string& uri);

// The URI without its password: the text as given with the password's bytes
// (":PASSWORD" before '@', a password=... query parameter) taken out when
// libpq reads that text as the same options less the password, otherwise
// the options written anew. Connects as the URI does once libpq finds the
// password elsewhere (PGPASSWORD, ~/.pgpass, PGPASSFILE, a service file).
std::string without_password(const std::string& uri);

// The connect string SOCI's PostgreSQL backend is given: the URI's options
// rewritten as postgresql://?KEY=VALUE&..., every byte of a value other
// than a letter, digit or -._~ percent-encoded, with connect_timeout
// (kPgConnectTimeoutS) unless the URI sets it. SOCI 4.0 reads its connect
// string as KEY=VALUE words separated by blanks (looking for its own
// `singlerow`) and writes each back as KEY=VALUE: a URI without '=' comes
// back with one appended (postgresql://h/lab becomes the database "lab="),
// and a quoted value loses its quotes. This form has no blank, no quote and
// an '=', so it comes back as it went in.
std::string soci_connect_string(const std::string& uri);

}  // namespace contest::history
