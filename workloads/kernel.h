#pragma once
// The reference workload: a minimal-config kernel compile. The parts of it
// that are worth testing on their own are declared here; the workload itself
// is made by make_workload({.kind = "kernel", ...}).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace contest {

// A tool (or header set) a kernel build needs, and the Debian package with it.
struct MissingTool {
    std::string what;
    std::string package;
};

// What of make, gcc, bc, bison, flex, tar and the libelf and openssl headers
// is missing, looking for programs in search_path (':'-separated) and for
// headers under include_dir (normally /usr/include).
std::vector<MissingTool> missing_kernel_tools(const std::string& search_path,
                                              const std::filesystem::path& include_dir);

// The newest linux-source-*.tar.{xz,gz,bz2} in dir (by version, as `sort -V`
// orders them), which is where Debian's linux-source-X package puts it.
std::optional<std::filesystem::path> newest_kernel_source(
    const std::filesystem::path& dir = "/usr/src");

// Identifies a source: for a tarball its own size and mtime; for a tree the
// total size of its files and the newest mtime among them (so a patched file
// anywhere changes it), and the number of files.
struct SourceFingerprint {
    std::filesystem::path path;  // absolute
    bool is_tree = false;
    std::uintmax_t size = 0;
    long long mtime_ns = 0;
    std::uintmax_t files = 1;
};
SourceFingerprint fingerprint_source(const std::filesystem::path& source);

// Whether --kernel-config's value names one of the kernel's own configs
// (tinyconfig, allnoconfig, defconfig), not a .config file.
bool is_named_kernel_config(const std::string& config);

}  // namespace contest
