#include "contest/history/pg_uri.h"

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>

#include "contest/sys/errors.h"

namespace contest::history {

namespace {

// libpq's options of text, or its error message; nullopt and the message.
std::optional<PgOptions> parsed(const std::string& text, std::string& why) {
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse(text.c_str(), &error);
    if (!options) {
        why = error ? error : "out of memory";
        if (error) PQfreemem(error);
        return std::nullopt;
    }
    PgOptions out;
    for (const PQconninfoOption* o = options; o->keyword; ++o)
        if (o->val) out.emplace_back(o->keyword, o->val);
    PQconninfoFree(options);
    return out;
}

PgOptions less_password(PgOptions options) {
    std::erase_if(options, [](const auto& o) { return o.first == "password"; });
    return options;
}

}  // namespace

std::string uri_percent_encoded(const std::string& value) {
    static const char hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : value) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

namespace {

std::string written_anew(const PgOptions& options) {
    std::string uri = "postgresql://";
    char sep = '?';
    for (const auto& [key, value] : options) {
        uri += sep + key + '=' + uri_percent_encoded(value);
        sep = '&';
    }
    return uri;
}

std::string percent_decoded(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() &&
            std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
            out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

// uri less the bytes libpq reads as its password: in the user-info (from
// "://" to the first '@', when an '@' comes before any '/'), what follows
// its first ':'; in the query (from the first '?' after the user-info), each
// parameter named password. Checked by the caller against libpq's reading.
std::string password_bytes_cut(std::string uri) {
    const std::size_t start = uri.find("://") + 3;
    std::size_t after_user = start;
    if (const std::size_t stop = uri.find_first_of("@/", start);
        stop != std::string::npos && uri[stop] == '@') {
        if (const std::size_t colon = uri.find(':', start); colon < stop) {
            uri.erase(colon, stop - colon);
            after_user = colon + 1;
        } else {
            after_user = stop + 1;
        }
    }
    const std::size_t query = uri.find('?', after_user);
    if (query == std::string::npos) return uri;
    std::string kept;
    std::size_t at = query + 1;
    while (at <= uri.size()) {
        std::size_t end = uri.find('&', at);
        if (end == std::string::npos) end = uri.size();
        const std::string param = uri.substr(at, end - at);
        if (percent_decoded(param.substr(0, param.find('='))) != "password")
            kept += (kept.empty() ? "" : "&") + param;
        at = end + 1;
    }
    return uri.substr(0, query) + (kept.empty() ? "" : "?" + kept);
}

}  // namespace

bool is_postgresql_uri(const std::string& text) {
    return text.starts_with("postgresql://") || text.starts_with("postgres://");
}

PgOptions pg_uri_options(const std::string& uri) {
    std::string why;
    if (auto options = parsed(uri, why)) return *options;
    // libpq quotes the part it could not read after ': "', which may be the
    // password; its reason comes before.
    why = why.substr(0, why.find(": \""));
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    throw UsageError("a PostgreSQL URI libpq cannot read: " + why +
                     " (the URI is not shown: it may hold a password)");
}

std::optional<std::string> pg_uri_password(const std::string& uri) {
    for (const auto& [key, value] : pg_uri_options(uri))
        if (key == "password") return value;
    return std::nullopt;
}

std::string without_password(const std::string& uri) {
    const PgOptions given = pg_uri_options(uri);
    const PgOptions wanted = less_password(given);
    if (wanted.size() == given.size()) return uri;
    const std::string cut = password_bytes_cut(uri);
    std::string why;
    if (is_postgresql_uri(cut) && parsed(cut, why) == wanted) return cut;
    return written_anew(wanted);
}

std::string soci_connect_string(const std::string& uri) {
    PgOptions options = pg_uri_options(uri);
    if (std::none_of(options.begin(), options.end(),
                     [](const auto& o) { return o.first == "connect_timeout"; }))
        options.emplace_back("connect_timeout", std::to_string(kPgConnectTimeoutS));
    return written_anew(options);
}

}  // namespace contest::history
