#include "contest/cli/load_cli.h"

#include <cstdlib>

#include "contest/sys/errors.h"

namespace contest {
namespace {

// The largest values the load options take (see bounded()).
constexpr unsigned kMaxRingProcesses = 16384;  // a ring beyond that is a fork storm
constexpr std::size_t kMaxRecordBytes = 1 << 20;
constexpr double kMaxLoadSizeMib = 16 << 20;  // 16 TiB; the loads cap it to what is free anyway

}  // namespace

void add_load_options(po::options_description& d, LoadOptions& lo, LoadOptionText& text) {
    // One option a line reads as a table; keep clang-format out of it.
    // clang-format off
    d.add_options()
        ("io-other-dir,o", po::value(&text.io_other)->value_name("D"), "where io_other writes (another disk)")
        ("ring-processes", bounded(&lo.ring_processes, 1u, kMaxRingProcesses)->value_name("N"),
         "process_load: processes in the ring (default 4 x online CPUs)")
        ("ring-records", bounded(&lo.ring_records, 1u, kMaxRingProcesses)->default_value(2)->value_name("N"),
         "process_load: records injected into the ring")
        ("record-bytes", bounded<std::size_t>(&lo.record_bytes, 1, kMaxRecordBytes)->default_value(8192)->value_name("B"),
         "process_load: bytes per record")
        ("load-size-mib", bounded(&text.size_mib, 1.0, kMaxLoadSizeMib)->value_name("MiB"),
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
    if (text.size_mib > 0) lo.size_bytes = static_cast<std::uint64_t>(text.size_mib * 1024 * 1024);
    if (!text.tar_source.empty()) lo.tar_source = text.tar_source;
}

}  // namespace contest
