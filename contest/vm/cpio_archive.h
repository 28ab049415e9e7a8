#pragma once
// A cpio archive in the "newc" format, the one the kernel unpacks as its
// initramfs: folders, files, symlinks and device nodes, all owned by root.
#include <cstdint>
#include <filesystem>
#include <string>

namespace contest {

class CpioArchive {
  public:
    void add_dir(const std::string& name, unsigned mode = 0755);
    void add_file(const std::string& name, const std::string& content, unsigned mode = 0644);
    // The host file's bytes; EnvironmentError when it cannot be read.
    void add_file_from(const std::string& name, const std::filesystem::path& from,
                       unsigned mode = 0644);
    void add_char_device(const std::string& name, unsigned major, unsigned minor,
                         unsigned mode = 0600);
    // The archive with its trailer.
    std::string finish();

  private:
    void add(const std::string& name, std::uint32_t mode, const std::string& data,
             unsigned rdev_major = 0, unsigned rdev_minor = 0);
    std::string bytes_;
    std::uint32_t next_inode_ = 1;
};

}  // namespace contest
