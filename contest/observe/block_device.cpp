#include "contest/observe/block_device.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace contest {

BlockDevice block_device_of(const std::string& path) {
    namespace fs = std::filesystem;
    BlockDevice dev;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
        dev.reason = path + ": " + std::strerror(errno);
        return dev;
    }
    dev.major = ::major(st.st_dev);
    dev.minor = ::minor(st.st_dev);
    const std::string numbers = std::to_string(dev.major) + ":" + std::to_string(dev.minor);
    // Major 0 is an anonymous device: tmpfs, overlay, NFS, FUSE, btrfs subvolumes.
    if (dev.major == 0) {
        dev.reason = path + " is on device " + numbers +
                     ", which is no block device (tmpfs, overlay, network or btrfs file system)";
        return dev;
    }
    std::error_code ec;
    const fs::path sys = fs::canonical("/sys/dev/block/" + numbers, ec);
    if (ec) {
        dev.reason = "/sys/dev/block/" + numbers + ": " + ec.message();
        return dev;
    }
    dev.found = true;
    dev.sysfs = sys.string();
    dev.name = sys.filename().string();
    dev.disk = fs::exists(sys / "partition") ? sys.parent_path().filename().string() : dev.name;
    return dev;
}

}  // namespace contest
