#pragma once
// The block device under a path (a workdir, not the root disk): its
// /proc/diskstats line and its disk's queue (I/O scheduler) in sysfs.
#include <string>

namespace contest {

struct BlockDevice {
    bool found = false;
    std::string reason;  // why not, when not found
    unsigned major = 0, minor = 0;
    std::string name;   // its line in /proc/diskstats: "vda", "nvme0n1p2"
    std::string disk;   // the whole disk a partition is on ("nvme0n1"); = name otherwise
    std::string sysfs;  // /sys/dev/block/M:m resolved; the disk's queue/ is under disk's
};

// stat(path).st_dev -> major:minor -> /sys/dev/block/M:m.
BlockDevice block_device_of(const std::string& path);

}  // namespace contest
