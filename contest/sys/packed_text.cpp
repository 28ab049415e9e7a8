#include "contest/sys/packed_text.h"

#include <openssl/evp.h>
#include <zlib.h>

#include <cctype>
#include <new>
#include <vector>

namespace contest {

std::string packed_text(std::string_view text) {
    uLongf size = compressBound(static_cast<uLong>(text.size()));
    std::vector<unsigned char> deflated(size);
    if (compress2(deflated.data(), &size, reinterpret_cast<const Bytef*>(text.data()),
                  static_cast<uLong>(text.size()), Z_BEST_SPEED) != Z_OK)
        throw std::bad_alloc();  // the only way compress2 fails with a bound-sized buffer
    std::string out(4 * ((size + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), deflated.data(),
                                  static_cast<int>(size));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::optional<std::string> unpacked_text(std::string_view packed, std::size_t max_bytes) {
    if (packed.empty() || packed.size() % 4 != 0 || packed.size() > (1u << 30)) return std::nullopt;
    for (char c : packed)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '='))
            return std::nullopt;
    std::vector<unsigned char> deflated(packed.size() / 4 * 3);
    const int n =
        EVP_DecodeBlock(deflated.data(), reinterpret_cast<const unsigned char*>(packed.data()),
                        static_cast<int>(packed.size()));
    if (n < 0) return std::nullopt;
    // EVP_DecodeBlock counts the padding's zero bytes: zlib stops at its own end.
    z_stream z{};
    if (inflateInit(&z) != Z_OK) return std::nullopt;
    z.next_in = deflated.data();
    z.avail_in = static_cast<uInt>(n);
    std::string out;
    char chunk[1 << 16];
    int status = Z_OK;
    while (status == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(chunk);
        z.avail_out = sizeof chunk;
        status = inflate(&z, Z_NO_FLUSH);
        if (status != Z_OK && status != Z_STREAM_END) break;
        out.append(chunk, sizeof chunk - z.avail_out);
        if (out.size() > max_bytes)
            status = Z_MEM_ERROR;
        else if (status == Z_OK && z.avail_in == 0 && z.avail_out != 0)
            status = Z_BUF_ERROR;
    }
    inflateEnd(&z);
    if (status != Z_STREAM_END) return std::nullopt;
    return out;
}

}  // namespace contest
