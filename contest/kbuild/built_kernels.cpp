#include "contest/kbuild/built_kernels.h"

#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "contest/kbuild/boot_install.h"
#include "contest/kbuild/build_cache.h"
#include "contest/kbuild/ccache_stats.h"
#include "contest/kbuild/guest_config.h"
#include "contest/kbuild/kernel_build.h"
#include "contest/kbuild/kernel_ref.h"
#include "contest/kbuild/tree_checkout.h"
#include "contest/observe/kernel_facts.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/machine.h"
#include "contest/sys/number_text.h"
#include "contest/sys/progress.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"
#include "contest/sys/text_file.h"
#include "contest/sys/workdir.h"

namespace contest::kbuild {
namespace {

namespace fs = std::filesystem;

// What every label's build shares: the config, the compiler, the cache, a
// checkout per tree.
struct BuildSession {
    const BuildSettings& settings;
    Progress& progress;
    fs::path kbuild;
    ConfigChoice config;
    std::string compiler, toolchain, cc;
    unsigned jobs = 1;
    BuildCache cache;
    std::map<fs::path, std::unique_ptr<TreeCheckout>> checkouts;

    TreeCheckout& checkout_of(const fs::path& tree, const std::string& what) {
        auto& slot = checkouts[tree];
        if (!slot) slot = std::make_unique<TreeCheckout>(kbuild / "trees", tree, what);
        return *slot;
    }
};

// The files of a built tree that --kernel reads (kernel_image.h's tree
// kind), copied out of the build folder, which the next label reuses.
void copy_outputs(const fs::path& build, const fs::path& tree) {
    std::error_code ec;
    fs::create_directories(tree / "arch/x86/boot", ec);
    fs::copy_file(build / "arch/x86/boot/bzImage", tree / "arch/x86/boot/bzImage",
                  fs::copy_options::overwrite_existing, ec);
    if (ec)
        throw EnvironmentError("cannot copy the built image into " + tree.string() + ": " +
                               ec.message());
    for (const char* file : {".config", "modules.builtin", "modules.order", "System.map"})
        if (fs::is_regular_file(build / file, ec))
            fs::copy_file(build / file, tree / file, fs::copy_options::overwrite_existing, ec);
}

KernelBuild build_one(BuildSession& s, const KernelSpec& spec, const KernelRef& ref) {
    const std::string what = s.settings.option + " " + spec.label + "=" + printable(spec.image);
    const std::string config_sha256 = label_config_sha256(s.config, ref.options);
    const std::string key =
        cache_key(ref, config_sha256, s.compiler, s.toolchain, s.settings.target);
    if (auto hit = s.cache.find(key)) {
        hit->label = spec.label;
        hit->spec = spec.image;
        hit->ref = ref.ref;
        hit->cache_hit = true;
        hit->ccache_hits = hit->ccache_misses = std::nullopt;
        s.progress.note("contest: " + what + ": built before (" + ref.commit.substr(0, 12) +
                        ", key " + key.substr(0, 16) + "), nothing to build: " + hit->image);
        return *hit;
    }
    const fs::path folder = s.settings.results_dir / spec.label;
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw EnvironmentError("cannot make " + folder.string() + ": " + ec.message());
    const fs::path log = fs::absolute(folder / ("build-" + key.substr(0, 16) + ".log"));
    create_file_no_follow(log);
    const std::string head = "[" + spec.label + "] ";
    s.progress.status(head + "checking out " + ref.commit.substr(0, 12) +
                      (ref.patches.empty()
                           ? ""
                           : " and applying " + std::to_string(ref.patches.size()) + " patches"));
    TreeCheckout& checkout = s.checkout_of(ref.tree, what);
    checkout.check_out(ref, log);
    const bool clean_before = checkout.clean();
    const fs::path partial = s.cache.partial();
    MakeSettings ms;
    ms.source = checkout.source();
    ms.build = checkout.build();
    ms.log = log;
    ms.jobs = s.jobs;
    ms.cc = s.cc;
    ms.commit_date = ref.commit_date;
    if (s.settings.target == BuildTarget::boot) ms.localversion = boot_localversion(key);
    ms.head = head;
    ms.what = what;
    const auto ccache_before = ccache_counts();
    const BuiltTree built =
        build_tree(ms, s.config, ref.options, partial / "tree/staging", s.progress);
    if (!built.overridden.empty())
        s.progress.note("contest: " + what + ": its options over the run's config: " +
                        join(built.overridden, ", ", change_text));
    const auto ccache_after = ccache_counts();
    copy_outputs(checkout.build(), partial / "tree");
    fs::copy_file(log, partial / "build.log", fs::copy_options::overwrite_existing, ec);

    KernelBuild b;
    b.label = spec.label;
    b.spec = spec.image;
    b.tree = ref.tree.string();
    b.ref = ref.ref;
    b.commit = ref.commit;
    b.subject = ref.subject;
    b.patches = ref.patches;
    b.head = checkout.head();
    b.config_source = s.config.source;
    b.config_sha256 = config_sha256;
    b.options = ref.options.lines();
    b.dot_config_sha256 = sha256_hex(built.dot_config);
    b.compiler = s.compiler;
    b.toolchain = s.toolchain;
    b.key = key;
    b.localversion = ms.localversion;
    b.release = bzimage_version(partial / "tree/arch/x86/boot/bzImage");
    b.release = b.release.substr(0, b.release.find(' '));
    b.cached = clean_before && checkout.clean();
    b.build_s = built.seconds;
    if (ccache_before && ccache_after) {
        b.ccache_hits = ccache_after->hits - ccache_before->hits;
        b.ccache_misses = ccache_after->misses - ccache_before->misses;
    }
    const fs::path final = s.cache.final_folder(key, b.cached);
    b.image = (final / "tree").string();
    b.log = log.string();
    s.cache.commit(partial, final, b);
    std::string ccache_text;
    if (b.ccache_hits)
        ccache_text = ", ccache " + std::to_string(*b.ccache_hits) + " hits, " +
                      std::to_string(*b.ccache_misses) + " misses";
    s.progress.note("contest: " + what + ": built " + ref.commit.substr(0, 12) + " (" +
                    (b.release.empty() ? "no release in its image" : b.release) + ") in " +
                    seconds_text(b.build_s) + ccache_text + "; log " + b.log +
                    (b.cached ? "" : "; not cached: the checkout was not clean"));
    if (s.config.on_tinyconfig)
        if (const auto unmet = unmet_guest_needs(parse_kernel_config(built.dot_config));
            !unmet.empty())
            warn(what +
                 ": its .config lacks what contest's guests need (a dependency this "
                 "tree lacks?): " +
                 join(unmet, "; "));
    return b;
}

// --boot: the release's modules installed and its initramfs made, once;
// the spec handed on is the image and that initramfs. `made` says whether
// this call made the release's folder (not when one of the same build was
// there).
std::string boot_spec(const BuildSettings& settings, Progress& progress, const KernelBuild& b,
                      const fs::path& tree, bool& made) {
    const fs::path image = tree / "arch/x86/boot/bzImage";
    if (b.release.empty())
        throw StepFailed(settings.option + " " + b.label + ": the built image " + image.string() +
                             " names no release",
                         "reading the release", b.log);
    made = install_release(tree / "staging/lib/modules" / b.release, b.release, b.key,
                           settings.install_root);
    if (!settings.make_initramfs) return image.string();
    // Made again once the machine's own initramfs set-up changed (a hook,
    // a module list, the tool): the one made before is removed.
    const std::string name = initramfs_name(b.release, initramfs_setup_sha256());
    const fs::path initrd = tree.parent_path() / name;
    std::error_code ec;
    if (!fs::is_regular_file(initrd, ec)) {
        for (const auto& e : fs::directory_iterator(tree.parent_path(), ec))
            if (const std::string other = e.path().filename().string();
                other.starts_with("initrd.img-" + b.release) && other != name)
                fs::remove(e.path(), ec);
        progress.status("[" + b.label + "] making the initramfs of " + b.release);
        make_initramfs(b.release, initrd);
    }
    return image.string() + ":" + initrd.string();
}

}  // namespace

std::string config_changes_line(const KernelBuild& b) {
    const std::string head = b.label + "'s .config against " + b.changes_against + "'s: ";
    if (b.config_changes.empty()) return head + "the same";
    const std::size_t n = b.config_changes.size();
    return head + std::to_string(n) + (n == 1 ? " option differs: " : " options differ: ") +
           join(b.config_changes, ", ", change_text);
}

std::vector<std::optional<BuiltKernel>> build_kernel_refs(const std::vector<KernelSpec>& specs,
                                                          const BuildSettings& settings,
                                                          Progress& progress) {
    std::vector<std::optional<BuiltKernel>> out(specs.size());
    bool any = false;
    for (const auto& spec : specs) any = any || looks_like_kernel_ref(spec.image);
    if (!any) return out;
    const Workdir workdir = Workdir::open(settings.workdir);
    workdir.make_dir("kbuild/trees");
    workdir.make_dir("kbuild/cache");
    const fs::path kbuild = workdir.real_dir("kbuild");
    // Every spec read before anything is built: a typo in the last label
    // costs no build of the first.
    std::vector<std::optional<KernelRef>> refs(specs.size());
    for (std::size_t i = 0; i < specs.size(); ++i)
        if (looks_like_kernel_ref(specs[i].image))
            refs[i] =
                read_kernel_ref(specs[i].image, settings.option + " " + specs[i].label, kbuild);
    BuildSession s{settings,
                   progress,
                   kbuild,
                   choose_config(settings.config_file, settings.target),
                   compiler_version(),
                   toolchain_text(),
                   ccache_installed() ? "ccache gcc" : "gcc",
                   settings.jobs ? settings.jobs : online_cpus(),
                   BuildCache(kbuild / "cache"),
                   {}};
    const KernelBuild* first = nullptr;
    std::string first_config;
    for (std::size_t i = 0; i < specs.size(); ++i) {
        if (!refs[i]) continue;
        KernelBuild b = build_one(s, specs[i], *refs[i]);
        const fs::path tree = b.image;  // the entry's built tree
        const std::string dot_config = read_text_file((tree / ".config").string()).value_or("");
        out[i] = BuiltKernel{b.image, std::move(b)};
        KernelBuild& record = out[i]->record;
        if (!first) {
            first = &record;
            first_config = dot_config;
            continue;
        }
        record.changes_against = first->label;
        record.config_changes = config_differences(first_config, dot_config);
    }
    progress.clear();
    std::set<std::string> used;
    for (const auto& built : out)
        if (built) used.insert(built->record.key);
    const auto bound = static_cast<std::uintmax_t>(settings.cache_max_gib * (1ull << 30));
    for (const auto& key : s.cache.evict(bound, used))
        progress.note("contest: removed the build " + key.substr(0, 16) +
                      " from the cache, the least recently used (--build-cache-max " +
                      number_text(settings.cache_max_gib) + " GiB)");
    for (auto& built : out) {
        if (!built) continue;
        KernelBuild& record = built->record;
        if (!record.changes_against.empty())
            progress.note("contest: " + config_changes_line(record));
        // Not .json: a results folder's .json files are its result files,
        // and `contest report results/LABEL` reads every one.
        const fs::path beside =
            settings.results_dir / record.label / ("build-" + record.key.substr(0, 16) + ".record");
        std::error_code ec;
        fs::create_directories(beside.parent_path(), ec);
        write_file_atomically(beside, record.to_json().dump(2) + "\n");
    }
    return out;
}

std::vector<std::string> install_for_boot(std::vector<std::optional<BuiltKernel>>& built,
                                          const BuildSettings& settings, Progress& progress) {
    std::vector<std::string> made;
    try {
        for (auto& kernel : built) {
            if (!kernel) continue;
            bool fresh = false;
            kernel->image =
                boot_spec(settings, progress, kernel->record, kernel->record.image, fresh);
            kernel->record.image = kernel->image;
            if (fresh) made.push_back(kernel->record.release);
        }
    } catch (...) {
        remove_releases(made, settings.install_root);
        throw;
    }
    progress.clear();
    return made;
}

void remove_releases(const std::vector<std::string>& releases, const fs::path& root) {
    for (const auto& release : releases) remove_release(release, root);
}

}  // namespace contest::kbuild
