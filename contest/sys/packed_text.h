#pragma once
// Text kept small in a database column: deflated (zlib) and then base64, so
// it is plain ASCII that SQLite's and PostgreSQL's TEXT both hold as it is.
// The results database keeps each result file so (the KCIDB export reads
// them back); a JSON result file packs to about a tenth of its size.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace contest {

std::string packed_text(std::string_view text);

// The text back; nullopt when `packed` is not what packed_text makes (not
// base64, not a zlib stream, cut short) or unpacks to more than max_bytes.
// Read as untrusted: a database is another program's as much as contest's.
std::optional<std::string> unpacked_text(std::string_view packed, std::size_t max_bytes);

}  // namespace contest
