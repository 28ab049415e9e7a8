#pragma once
// A kernel to boot in a guest (`contest run --kernel LABEL=IMAGE`): a
// bzImage/vmlinuz file, a kernel build tree, or a Debian linux-image-*
// package (a .deb file, or a name fetched with `apt-get download`), unpacked
// into the workdir's cache and never installed. What is found of it: the
// image, its modules (by name), which drivers are built in, its .config,
// and the release its image names.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/sys/progress.h"

namespace contest {

// --kernel LABEL=IMAGE as given.
struct KernelSpec {
    std::string label, image;
};

enum class ImageKind { file, tree, package };

struct KernelImage {
    std::string spec;  // IMAGE as given
    ImageKind kind = ImageKind::file;
    std::filesystem::path image;                           // what QEMU boots (-kernel)
    std::map<std::string, std::filesystem::path> modules;  // name (with _) -> its .ko
    std::set<std::string> builtin;                         // modules.builtin's names, when known
    std::string config_text, config_source;                // the .config; empty when not found
    std::string release;       // from the image's header ("6.1.0-57-amd64")
    std::string version_text;  // the header's whole version string

    // uname release, the config's SHA-256, HZ, preemption, where each came from.
    nlohmann::json fingerprint() const;
};

// "file", "tree" or "package".
const char* image_kind_name(ImageKind kind);

// Resolves IMAGE. A package name is fetched into cache/debs/ and every
// package unpacked once into cache/<package file's stem>/. UsageError naming
// IMAGE when it is none of the three; EnvironmentError when fetching or
// unpacking fails.
KernelImage resolve_kernel_image(const std::string& spec, const std::filesystem::path& cache,
                                 Progress& progress, const std::filesystem::path& host_root = "/");

// The version string a bzImage's setup header points to ("" when the file
// is no bzImage).
std::string bzimage_version(const std::filesystem::path& image);

// A module's dependencies from its .modinfo ("depends=a,b"); empty when none.
std::vector<std::string> module_depends(const std::filesystem::path& ko);

// The modules to insmod, in an order where each comes after what it
// depends on: those of `wanted` the image has as modules, and their
// dependencies. A wanted one that is neither a module nor known to be built
// in is taken as built in (`assumed_builtin` names it).
std::vector<std::string> modules_to_load(const KernelImage& kernel,
                                         const std::vector<std::string>& wanted,
                                         std::vector<std::string>* assumed_builtin = nullptr);

}  // namespace contest
