#pragma once
// SHA-256 (FIPS 180-4), for the kernel .config's fingerprint and the key of
// a kernel package's unpacked copy: small enough to keep rather than add
// libcrypto to the dependencies.
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace contest {

// The digest of data given in pieces.
class Sha256 {
  public:
    Sha256();
    void update(std::string_view data);
    // Lower-case hex digest of everything given; once, at the end.
    std::string hex();

  private:
    std::array<std::uint32_t, 8> h_;
    std::array<unsigned char, 64> block_{};
    std::size_t buffered_ = 0;
    std::uint64_t size_ = 0;
};

// Lower-case hex digest of `data`.
std::string sha256_hex(std::string_view data);

// Of a file's bytes, read in pieces; nullopt when it cannot be read.
std::optional<std::string> file_sha256_hex(const std::filesystem::path& path);

}  // namespace contest
