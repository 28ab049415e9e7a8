#pragma once
// SHA-256, for the kernel .config's fingerprint and the key of a kernel
// package's unpacked copy: OpenSSL's libcrypto (EVP), the implementation
// every Debian machine already has and keeps up to date.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of every includer

namespace contest {

// The digest of data given in pieces.
class Sha256 {
  public:
    Sha256();  // throws EnvironmentError when libcrypto cannot start one
    void update(std::string_view data);
    // Lower-case hex digest of everything given; once, at the end.
    std::string hex();

  private:
    struct FreeContext {
        void operator()(evp_md_ctx_st* context) const;
    };
    std::unique_ptr<evp_md_ctx_st, FreeContext> context_;
};

// Lower-case hex digest of `data`.
std::string sha256_hex(std::string_view data);

// Of a file's bytes, read in pieces; nullopt when it cannot be read.
std::optional<std::string> file_sha256_hex(const std::filesystem::path& path);

}  // namespace contest
