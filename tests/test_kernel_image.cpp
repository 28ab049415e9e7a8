// --kernel's images resolved without booting them: which modules a kernel
// gets, compressed modules in its initramfs, and the unpack cache of a
// package file. Fake kernels: a bzImage is a setup header naming a
// release, a module a few bytes with its .modinfo's depends=. Tagged [vm]
// (they need the guests' dependencies: busybox-static, xz, zstd), but for
// the bzImage header's own checks, which need none.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "contest/sys/progress.h"
#include "contest/sys/sha256.h"
#include "contest/sys/words.h"
#include "contest/vm/initramfs.h"
#include "contest/vm/kernel_image.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

// A module's bytes as module_depends reads them: its .modinfo strings.
std::string fake_module(const std::string& name, const std::string& depends) {
    return std::string("\x7f") + "ELF fake module\0" + "name=" + name + '\0' +
           "depends=" + depends + '\0' + "vermagic=6.99.0-fake\0";
}

void write(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
}

// The initramfs unpacked by busybox's cpio, the independent reader.
fs::path unpacked_cpio(const fs::path& cpio, const fs::path& into) {
    fs::create_directories(into);
    test::shell_output("cd " + into.string() + " && busybox cpio -id < " + cpio.string() +
                       " 2>/dev/null");
    return into;
}

}  // namespace

TEST_CASE(
    "a kernel file (--kernel) takes only its own release's modules, and none when it has none",
    "[vm]") {
    test::ScratchDir dir("own-modules");
    Progress quiet(Progress::Mode::kQuiet);
    const fs::path root = dir / "root";
    write(dir / "vmlinuz-6.99.0-fake", test::fake_bzimage("6.99.0-fake (t@h) #1 SMP"));
    // The host's modules are another kernel's.
    for (const char* m : {"virtio_blk", "ext4", "9p"})
        write(root / "lib/modules/6.1.0-other/kernel" / (std::string(m) + ".ko"),
              fake_module(m, ""));
    KernelImage k =
        resolve_kernel_image((dir / "vmlinuz-6.99.0-fake").string(), dir / "cache", quiet, root);
    CHECK(k.release == "6.99.0-fake");
    CHECK(k.modules_folder.empty());
    CHECK(k.modules.empty());
    Initramfs none = build_initramfs(k, dir / "none.cpio");
    CHECK(none.modules.empty());
    CHECK(none.assumed_builtin.size() == 6);  // everything the guest needs

    // Its own release's folder, beside the other: only its modules.
    write(root / "lib/modules/6.99.0-fake/kernel/virtio_blk.ko", fake_module("virtio_blk", ""));
    k = resolve_kernel_image((dir / "vmlinuz-6.99.0-fake").string(), dir / "cache", quiet, root);
    REQUIRE(k.modules.size() == 1);
    CHECK(k.modules.begin()->first == "virtio_blk");
    CHECK(k.modules.begin()->second.string().find("6.99.0-fake") != std::string::npos);
    CHECK(build_initramfs(k, dir / "own.cpio").modules == std::vector<std::string>{"virtio_blk"});
}

TEST_CASE("compressed modules (.ko.xz, .ko.zst, .ko.gz) go into the initramfs decompressed",
          "[vm]") {
    test::ScratchDir dir("compressed-modules");
    Progress quiet(Progress::Mode::kQuiet);
    const fs::path tree = dir / "linux";
    write(tree / "arch/x86/boot/bzImage", test::fake_bzimage("6.99.0-fake (t@h) #1 SMP"));
    const std::map<std::string, std::string> plain = {
        {"virtio_ring", fake_module("virtio_ring", "")},
        {"virtio_blk", fake_module("virtio_blk", "virtio_ring")},
        {"mbcache", fake_module("mbcache", "")},
        {"ext4", fake_module("ext4", "mbcache")},
        {"9pnet_virtio", fake_module("9pnet_virtio", "")}};
    // How each is shipped: compressed by the tool its name says, or not.
    const std::map<std::string, std::string> compressor = {{"virtio_ring", "zstd -q --rm"},
                                                           {"virtio_blk", "xz"},
                                                           {"mbcache", "gzip"},
                                                           {"ext4", "zstd -q --rm"},
                                                           {"9pnet_virtio", ""}};
    for (const auto& [name, bytes] : plain) {
        const fs::path ko = tree / "drivers" / (name + ".ko");
        write(ko, bytes);
        if (!compressor.at(name).empty())
            test::shell_output(compressor.at(name) + " " + ko.string());
    }
    REQUIRE(fs::exists(tree / "drivers/virtio_blk.ko.xz"));
    REQUIRE(fs::exists(tree / "drivers/ext4.ko.zst"));
    REQUIRE(fs::exists(tree / "drivers/mbcache.ko.gz"));
    REQUIRE_FALSE(fs::exists(tree / "drivers/ext4.ko"));

    const KernelImage k = resolve_kernel_image(tree.string(), dir / "cache", quiet);
    fs::create_directories(dir / "out");
    const Initramfs built = build_initramfs(k, dir / "out/i.cpio");
    // Each after what its (decompressed) .modinfo says it depends on.
    const std::vector<std::string> order = {"virtio_ring", "virtio_blk", "mbcache", "ext4",
                                            "9pnet_virtio"};
    CHECK(built.modules == order);
    const fs::path got = unpacked_cpio(dir / "out/i.cpio", dir / "x");
    CHECK(split_words(test::slurp(got / "modules/order")) == order);  // one a line
    for (const auto& [name, bytes] : plain) {
        INFO(name);
        CHECK(test::slurp(got / "modules" / (name + ".ko")) == bytes);
    }
    // Nothing but the archive is left beside it.
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir / "out")) left.push_back(e.path().filename());
    CHECK(left == std::vector<std::string>{"i.cpio"});
}

TEST_CASE(
    "the systemd machine's initramfs loads the virtio NIC after what it depends on, --kernel's "
    "guests have no network and no NIC module",
    "[vm]") {
    test::ScratchDir dir("nic-modules");
    Progress quiet(Progress::Mode::kQuiet);
    const fs::path tree = dir / "linux";
    write(tree / "arch/x86/boot/bzImage", test::fake_bzimage("6.99.0-fake (t@h) #1 SMP"));
    // As Debian's 6.1 builds them: virtio_net over net_failover over failover.
    for (const auto& [name, depends] : std::vector<std::pair<std::string, std::string>>{
             {"failover", ""}, {"net_failover", "failover"}, {"virtio_net", "net_failover"}})
        write(tree / "drivers" / (name + ".ko"), fake_module(name, depends));
    const KernelImage k = resolve_kernel_image(tree.string(), dir / "cache", quiet);
    const Initramfs systemd = build_initramfs(k, dir / "systemd.cpio", InitMode::systemd_machine);
    CHECK(systemd.modules == std::vector<std::string>{"failover", "net_failover", "virtio_net"});
    const fs::path got = unpacked_cpio(dir / "systemd.cpio", dir / "x");
    CHECK(split_words(test::slurp(got / "modules/order")) == systemd.modules);
    CHECK(build_initramfs(k, dir / "once.cpio").modules.empty());
}

TEST_CASE("a rebuilt .deb of the same file name is unpacked again, not taken from the cache",
          "[vm]") {
    test::ScratchDir dir("deb-cache");
    Progress quiet(Progress::Mode::kQuiet);
    const fs::path deb = dir / "linux-image-6.99.0-fake_1_amd64.deb";
    auto build_deb = [&](const std::string& build, const std::string& config) {
        const fs::path pkg = dir / ("pkg-" + build);
        write(pkg / "DEBIAN/control",
              "Package: linux-image-6.99.0-fake\nVersion: 1\nArchitecture: amd64\n"
              "Maintainer: contest tests <tests@example.org>\nDescription: a fake kernel\n");
        write(pkg / "boot/vmlinuz-6.99.0-fake", test::fake_bzimage("6.99.0-fake (t@h) #" + build));
        write(pkg / "boot/config-6.99.0-fake", config);
        REQUIRE(test::shell_output("dpkg-deb --root-owner-group -Znone -b " + pkg.string() + " " +
                                   deb.string() + " >/dev/null 2>&1 && echo built") == "built");
    };
    const fs::path cache = dir / "cache";
    build_deb("1", "CONFIG_HZ=250\n");
    const KernelImage first = resolve_kernel_image(deb.string(), cache, quiet);
    CHECK(first.version_text == "6.99.0-fake (t@h) #1");
    CHECK(first.config_text == "CONFIG_HZ=250\n");

    // The same version rebuilt, at the same path.
    build_deb("2", "CONFIG_HZ=1000\n");
    const KernelImage second = resolve_kernel_image(deb.string(), cache, quiet);
    CHECK(second.version_text == "6.99.0-fake (t@h) #2");
    CHECK(second.config_text == "CONFIG_HZ=1000\n");
    CHECK(second.image != first.image);

    // The same file again: its cache, not a third unpacking.
    const KernelImage again = resolve_kernel_image(deb.string(), cache, quiet);
    CHECK(again.image == second.image);
    int unpacked = 0;
    for (const auto& e : fs::directory_iterator(cache)) unpacked += e.is_directory();
    CHECK(unpacked == 2);
}

TEST_CASE("SHA-256 in pieces and of a file is the one of the whole", "[vm]") {
    std::string data;
    for (unsigned i = 0; i < 300007; ++i) data.push_back(static_cast<char>(i * 7919u % 251));
    Sha256 pieces;
    // Pieces across the 64-byte blocks' edges, of every size up to 130.
    for (std::size_t at = 0, n = 1; at < data.size(); at += n, n = n % 130 + 1)
        pieces.update(std::string_view(data).substr(at, n));
    const std::string whole = sha256_hex(data);
    CHECK(pieces.hex() == whole);
    test::ScratchDir dir("sha256");
    write(dir / "f", data);
    CHECK(file_sha256_hex(dir / "f") == whole);
    // sha256sum, the independent judge.
    CHECK(test::shell_output("sha256sum " + (dir / "f").string() + " | cut -d' ' -f1") == whole);
    CHECK_FALSE(file_sha256_hex(dir / "missing"));
}

TEST_CASE("a --kernel that is a device or a FIFO is refused as such, not as a missing file",
          "[vm]") {
    test::ScratchDir dir("kernel-special");
    Progress quiet(Progress::Mode::kQuiet);
    test::shell_output("mkfifo " + (dir / "fifo").string());
    for (const std::string& spec : {std::string("/dev/zero"), (dir / "fifo").string()}) {
        INFO(spec);
        CHECK_THROWS_WITH(resolve_kernel_image(spec, dir / "cache", quiet, dir / "root"),
                          Catch::Contains("neither a file nor a folder"));
    }
}

TEST_CASE("a bzImage's header: its version, and a copy cut short told from a whole one",
          "[kernel]") {
    test::ScratchDir dir("bzimage-header");
    const std::string whole = test::fake_bzimage("6.99.0-fake (t@h) #1 SMP", 4096);
    write(dir / "whole", whole);
    write(dir / "cut", whole.substr(0, whole.size() / 2));
    write(dir / "short", "hello\n");
    CHECK(bzimage_version(dir / "whole") == "6.99.0-fake (t@h) #1 SMP");
    CHECK(bzimage_version(dir / "cut") == "6.99.0-fake (t@h) #1 SMP");
    CHECK(bzimage_version(dir / "short").empty());
    CHECK_FALSE(bzimage_truncated(dir / "whole"));
    // One setup sector and the boot sector before it, then 4096 bytes.
    const auto cut = bzimage_truncated(dir / "cut");
    REQUIRE(cut);
    CHECK(cut->find(" is " + std::to_string(whole.size() / 2) + " bytes where its header says " +
                    std::to_string(2 * 512 + 4096) + ": cut short") != std::string::npos);
    const auto too_short = bzimage_truncated(dir / "short");
    REQUIRE(too_short);
    CHECK(too_short->find("too short for a bzImage header") != std::string::npos);
}
