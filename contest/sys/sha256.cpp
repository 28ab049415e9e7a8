#include "contest/sys/sha256.h"

#include <openssl/evp.h>

#include <fstream>

#include "contest/sys/errors.h"

namespace contest {
namespace {

// A digest's bytes as lower-case hex, two digits a byte.
std::string hex_of(const unsigned char* bytes, unsigned size) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(2 * size);
    for (unsigned i = 0; i < size; ++i) {
        hex.push_back(kDigits[bytes[i] >> 4]);
        hex.push_back(kDigits[bytes[i] & 0xf]);
    }
    return hex;
}

}  // namespace

void Sha256::FreeContext::operator()(evp_md_ctx_st* context) const {
    EVP_MD_CTX_free(context);
}

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
    if (!context_ || EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) != 1)
        throw EnvironmentError("libcrypto cannot start a SHA-256 digest");
}

void Sha256::update(std::string_view data) {
    if (EVP_DigestUpdate(context_.get(), data.data(), data.size()) != 1)
        throw EnvironmentError("libcrypto's SHA-256 digest failed");
}

std::string Sha256::hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned size = 0;
    if (EVP_DigestFinal_ex(context_.get(), digest, &size) != 1)
        throw EnvironmentError("libcrypto's SHA-256 digest failed");
    return hex_of(digest, size);
}

std::string sha256_hex(std::string_view data) {
    Sha256 sha;
    sha.update(data);
    return sha.hex();
}

std::optional<std::string> file_sha256_hex(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    Sha256 sha;
    std::string buf(1 << 20, '\0');
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        sha.update(std::string_view(buf.data(), static_cast<std::size_t>(in.gcount())));
    }
    if (in.bad()) return std::nullopt;
    return sha.hex();
}

}  // namespace contest
