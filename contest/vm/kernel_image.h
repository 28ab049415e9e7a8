#pragma once
// A kernel to boot in a guest (`contest run --kernel LABEL=IMAGE`): a
// bzImage/vmlinuz file, a kernel build tree, or a Debian linux-image-*
// package (a .deb file, or a name fetched with `apt-get download`), unpacked
// into the workdir's cache and never installed. What is found of it: the
// image, its modules (by name), which drivers are built in, its .config,
// and the release its image names.
#include <array>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/sys/enum_names.h"
#include "contest/sys/progress.h"

namespace contest {

// A kernel as given, LABEL=VALUE: --kernel's image, --boot's kernel,
// --boot-append's ARGS.
struct KernelSpec {
    std::string label, image;
};

enum class ImageKind { file, tree, package };

// The words the result file records for each kind.
inline constexpr std::array<EnumName<ImageKind>, 3> kImageKindNames{{
    {ImageKind::file, "file"},
    {ImageKind::tree, "tree"},
    {ImageKind::package, "package"},
}};

struct KernelImage {
    std::string spec;  // IMAGE as given
    ImageKind kind = ImageKind::file;
    std::filesystem::path image;  // what QEMU boots (-kernel)
    // Where its modules were looked for: the tree, or lib/modules/<release>/
    // (empty when it has none: everything it needs is taken as built in).
    std::filesystem::path modules_folder;
    // name (with _) -> its .ko, .ko.xz, .ko.zst or .ko.gz
    std::map<std::string, std::filesystem::path> modules;
    std::set<std::string> builtin;           // modules.builtin's names, when known
    std::string config_text, config_source;  // the .config; empty when not found
    std::string release;                     // from the image's header ("6.1.0-57-amd64")
    std::string version_text;                // the header's whole version string

    // uname release, the config's SHA-256, HZ, preemption, where each came from.
    nlohmann::json fingerprint() const;
};

// Resolves IMAGE. A package name is fetched into cache/debs/ and every
// package file unpacked once into cache/<its stem>-<its SHA-256's first 16
// hex digits>/. A kernel file's modules are host_root's
// lib/modules/<release>/ only, its .config beside it or in host_root's boot/.
// UsageError naming IMAGE when it is none of the three; EnvironmentError
// when fetching or unpacking fails.
KernelImage resolve_kernel_image(const std::string& spec, const std::filesystem::path& cache,
                                 Progress& progress, const std::filesystem::path& host_root = "/");

// The version string a bzImage's setup header points to ("" when the file
// is no bzImage).
std::string bzimage_version(const std::filesystem::path& image);

// Why the bzImage is shorter than its setup header says (a copy cut short):
// kexec_file_load takes such an image, whose kernel then fails in its
// decompressor, far from any log. nullopt when it is whole.
std::optional<std::string> bzimage_truncated(const std::filesystem::path& image);

// A module file's bytes as insmod takes them: a compressed one (.ko.xz,
// .ko.zst, .ko.gz) decompressed with xz, zstd or gzip through a file in
// `scratch`, removed after. EnvironmentError naming the program (and its
// package) when it is missing, or when it fails.
std::string module_bytes(const std::filesystem::path& module, const std::filesystem::path& scratch);

// A module's dependencies from its .modinfo ("depends=a,b") in its
// (decompressed) bytes; empty when none.
std::vector<std::string> module_depends(const std::string& bytes);

// The modules to insmod, in an order where each comes after what it
// depends on: those of `wanted` the image has as modules, and their
// dependencies (read from bytes_of(name), a module's decompressed bytes).
// A wanted one that is neither a module nor known to be built in is taken
// as built in (`assumed_builtin` names it).
std::vector<std::string> modules_to_load(
    const KernelImage& kernel, const std::vector<std::string>& wanted,
    const std::function<const std::string&(const std::string&)>& bytes_of,
    std::vector<std::string>* assumed_builtin = nullptr);

}  // namespace contest
