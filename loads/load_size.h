#pragma once
// --load-size-mib, the one option several loads share (io_load, io_other,
// read_load, mem_load): they size themselves from RAM, and this replaces RAM
// as the target (tests and quick runs), still subject to the loads' caps.
#include <cstdint>
#include <optional>

#include "loads/load.h"

namespace contest {

inline constexpr LoadOption kLoadSizeOption{
    .name = "load-size-mib",
    .value_name = "MiB",
    .help = "size to this instead of RAM (still capped to what is free)",
    .kind = LoadOptionKind::number,
    .min = 1,
    .max = 16 << 20,  // 16 TiB: the loads cap it to what is free anyway
};

// The size asked for, in bytes; nullopt when none was (0 is none too).
inline std::optional<std::uint64_t> load_size_bytes(const LoadOptions& options) {
    double mib = options.number(kLoadSizeOption).value_or(0);
    if (mib <= 0) return std::nullopt;
    return static_cast<std::uint64_t>(mib * 1024 * 1024);
}

}  // namespace contest
