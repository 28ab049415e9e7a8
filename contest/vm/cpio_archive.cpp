#include "contest/vm/cpio_archive.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "contest/sys/errors.h"

namespace contest {
namespace {

void pad_to_four(std::string& s) {
    while (s.size() % 4 != 0) s.push_back('\0');
}

}  // namespace

void CpioArchive::add(const std::string& name, std::uint32_t mode, const std::string& data,
                      unsigned rdev_major, unsigned rdev_minor) {
    // newc: "070701", then 13 fields of 8 hex digits: inode, mode, uid, gid,
    // nlink, mtime, file size, dev major/minor, rdev major/minor, name size
    // (with its NUL) and a checksum that is 0 in this format.
    const unsigned fields[13] = {next_inode_++,
                                 mode,
                                 0,
                                 0,
                                 S_ISDIR(mode) ? 2u : 1u,
                                 0,
                                 static_cast<unsigned>(data.size()),
                                 0,
                                 0,
                                 rdev_major,
                                 rdev_minor,
                                 static_cast<unsigned>(name.size() + 1),
                                 0};
    bytes_ += "070701";
    char hex[9];
    for (unsigned f : fields) {
        std::snprintf(hex, sizeof hex, "%08X", f);
        bytes_ += hex;
    }
    bytes_ += name;
    bytes_.push_back('\0');
    pad_to_four(bytes_);
    bytes_ += data;
    pad_to_four(bytes_);
}

void CpioArchive::add_dir(const std::string& name, unsigned mode) {
    add(name, S_IFDIR | mode, "");
}

void CpioArchive::add_file(const std::string& name, const std::string& content, unsigned mode) {
    add(name, S_IFREG | mode, content);
}

void CpioArchive::add_file_from(const std::string& name, const std::filesystem::path& from,
                                unsigned mode) {
    std::ifstream in(from, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    if (!in || !content)
        throw EnvironmentError("cannot read " + from.string() + " for the guest's initramfs");
    add_file(name, content.str(), mode);
}

void CpioArchive::add_char_device(const std::string& name, unsigned major, unsigned minor,
                                  unsigned mode) {
    add(name, S_IFCHR | mode, "", major, minor);
}

std::string CpioArchive::finish() {
    add("TRAILER!!!", 0, "");
    return std::move(bytes_);
}

}  // namespace contest
