#include "contest/sys/mail_header.h"

#include <openssl/evp.h>

#include <algorithm>

namespace contest {

namespace {

bool plain_ascii(std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

std::string base64(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(bytes.data()),
                                  static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

// The length of the UTF-8 sequence `lead` starts (1 for any byte that
// starts none: a value made printable() holds none).
std::size_t sequence_length(unsigned char lead) {
    if (lead >= 0xf0 && lead <= 0xf4) return 4;
    if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
    if (lead >= 0xc2) return 2;
    return 1;
}

}  // namespace

std::string mail_header(std::string_view name, std::string_view value) {
    std::string out = std::string(name) + ": ";
    if (plain_ascii(value)) return out.append(value) + "\n";
    constexpr std::string_view kOpen = "=?UTF-8?B?", kClose = "?=";
    std::size_t used = out.size();  // of the line so far
    std::size_t at = 0;
    while (at < value.size()) {
        // Whole characters, as many as the line's room takes in base64.
        const std::size_t room = kMailHeaderColumns - used - kOpen.size() - kClose.size();
        const std::size_t bytes_fit = room / 4 * 3;
        std::size_t end = at;
        while (end < value.size()) {
            const std::size_t n = std::min(sequence_length(static_cast<unsigned char>(value[end])),
                                           value.size() - end);
            if (end + n - at > bytes_fit && end > at) break;
            end += n;
        }
        out.append(kOpen).append(base64(value.substr(at, end - at))).append(kClose).append("\n");
        at = end;
        if (at < value.size()) {
            out += ' ';
            used = 1;
        }
    }
    return out;
}

}  // namespace contest
