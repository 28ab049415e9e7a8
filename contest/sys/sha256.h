#pragma once
// SHA-256 (FIPS 180-4), for the kernel .config's fingerprint: small enough
// to keep rather than add libcrypto to the dependencies.
#include <string>
#include <string_view>

namespace contest {

// Lower-case hex digest of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace contest
