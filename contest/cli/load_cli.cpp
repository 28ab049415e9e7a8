#include "contest/cli/load_cli.h"

#include <cstdlib>

#include "contest/sys/errors.h"

namespace contest {

void add_load_options(po::options_description& d, LoadOptions& lo, LoadOptionText& text) {
    // One option a line reads as a table; keep clang-format out of it.
    // clang-format off
    d.add_options()
        ("io-other-dir,o", po::value(&text.io_other)->value_name("D"), "where io_other writes (another disk)")
        ("ring-processes", po::value(&lo.ring_processes)->value_name("N"),
         "process_load: processes in the ring (default 4 x online CPUs)")
        ("ring-records", po::value(&lo.ring_records)->default_value(2)->value_name("N"),
         "process_load: records injected into the ring")
        ("record-bytes", po::value(&lo.record_bytes)->default_value(8192)->value_name("B"),
         "process_load: bytes per record")
        ("load-size-mib", po::value(&text.size_mib)->value_name("MiB"),
         "size io_load, read_load and mem_load to this instead of RAM (still capped to what is free)")
        ("tar-source", po::value(&text.tar_source)->value_name("D"),
         "ctar_load, xtar_load: the tree to archive (default: the workload's source; alone, /usr/include)");
    // clang-format on
}

std::filesystem::path default_workdir() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::filesystem::path(x) / "contest";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::filesystem::path(h) / ".cache" / "contest";
    return "/tmp/contest";
}

void finish_load_options(LoadOptions& lo, const LoadOptionText& text) {
    if (!text.io_other.empty()) lo.io_other_dir = text.io_other;
    if (text.size_mib < 0) throw UsageError("--load-size-mib must be positive");
    if (text.size_mib > 0) lo.size_bytes = static_cast<std::uint64_t>(text.size_mib * 1024 * 1024);
    if (!text.tar_source.empty()) lo.tar_source = text.tar_source;
    if (lo.record_bytes < 1 || lo.record_bytes > (1u << 20))
        throw UsageError("--record-bytes must be from 1 to 1048576");
}

}  // namespace contest
