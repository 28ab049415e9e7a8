// list_load: walks the whole file system from / and lstat()s every entry,
// as `ls -lRa /` did in contest, over and over. It never follows a symlink
// (lstat, and O_NOFOLLOW when opening folders) and stays out of /proc, /sys
// and /dev, and out of any pseudo file system mounted elsewhere: those are
// not files on a disk, and some of them block or never end.
#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "contest/sys/unique_fd.h"
#include "loads/registry.h"

namespace contest {
namespace {

// Deeper than any real tree; a bound on the folders held open at once.
constexpr int kMaxDepth = 200;

bool pseudo_file_system(int dirfd) {
    struct statfs fs {};
    if (::fstatfs(dirfd, &fs) != 0) return true;
    switch (static_cast<unsigned long>(fs.f_type)) {
        case PROC_SUPER_MAGIC:
        case SYSFS_MAGIC:
        case DEVPTS_SUPER_MAGIC:
        case DEBUGFS_MAGIC:
        case TRACEFS_MAGIC:
        case SECURITYFS_MAGIC:
        case CGROUP_SUPER_MAGIC:
        case CGROUP2_SUPER_MAGIC:
        case BPF_FS_MAGIC:
        case PSTOREFS_MAGIC:
        case EFIVARFS_MAGIC:
        case BINFMTFS_MAGIC:
        case AUTOFS_SUPER_MAGIC:  // would trigger mounts
        case 0x65735543:          // fusectl
        case 0x62656570:          // configfs
            return true;
        default:
            return false;
    }
}

class ListLoad final : public Load {
  public:
    void run(LoadCounters& counters) override {
        for (;;) {
            UniqueFd root(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
            if (root.get() < 0) {
                counters.fail(std::string("list_load: cannot open /: ") + std::strerror(errno));
                return;
            }
            struct stat st {};
            ::fstat(root.get(), &st);
            list_folder(counters, std::move(root), st.st_dev, 0, true);
            counters.secondary.fetch_add(1, std::memory_order_relaxed);
        }
    }

    nlohmann::json facts() const override {
        return {{"root", "/"},
                {"skipped", {"/proc", "/sys", "/dev", "pseudo file systems mounted elsewhere"}},
                {"follows_symlinks", false}};
    }

  private:
    // Lists the folder open on dirfd, lstat()ing
    // every entry, then descends into its subfolders, as ls -R does: the
    // whole folder first, then the children. Subfolders are opened relative
    // to their parent's fd, so one fd per level is open at a time and no
    // path is ever resolved through a symlink.
    void list_folder(LoadCounters& counters, UniqueFd folder, dev_t parent_dev, int depth,
                     bool is_root) {
        DIR* dir = ::fdopendir(folder.get());
        if (!dir) return;
        const int dirfd = folder.release();  // closedir closes it
        std::vector<std::string> subfolders;
        std::uint64_t entries = 0;
        while (struct dirent* e = ::readdir(dir)) {
            const char* name = e->d_name;
            if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
            struct stat st {};
            if (::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone meanwhile
            ++entries;
            if (!S_ISDIR(st.st_mode)) continue;
            if (is_root && (std::strcmp(name, "proc") == 0 || std::strcmp(name, "sys") == 0 ||
                            std::strcmp(name, "dev") == 0))
                continue;
            subfolders.emplace_back(name);
        }
        counters.units.fetch_add(entries, std::memory_order_relaxed);
        if (depth < kMaxDepth) {
            for (const auto& name : subfolders) {
                UniqueFd child(
                    ::openat(dirfd, name.c_str(),
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
                if (child.get() < 0) continue;
                struct stat st {};
                if (::fstat(child.get(), &st) != 0 ||
                    (st.st_dev != parent_dev && pseudo_file_system(child.get())))
                    continue;
                list_folder(counters, std::move(child), st.st_dev, depth + 1, false);
            }
        }
        ::closedir(dir);  // closes dirfd
    }
};

}  // namespace

extern const LoadInfo kListLoad{
    .name = "list_load",
    .help = "lists the whole file system (ls -lRa / without /proc /sys /dev), over and over",
    .unit = "entries",
    .secondary_unit = "passes",
    .classes = LoadClass::filesystem,
    .make = [](const LoadEnv&) -> std::unique_ptr<Load> { return std::make_unique<ListLoad>(); },
};

}  // namespace contest
