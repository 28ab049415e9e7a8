#pragma once
// contest's scratch folder, opened once and used only relative to that
// descriptor: contest runs as root next to loads that write gigabytes, so a
// symbolic link planted in the workdir (command.log -> /etc/passwd, loads ->
// /home) must never be followed, and nothing outside it is written or
// deleted.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "contest/sys/unique_fd.h"

namespace contest {

class Workdir {
  public:
    // Creates path (0700) when missing and opens it. Refuses (EnvironmentError
    // naming it and why) a workdir owned by another user or writable by its
    // group or others: whoever can write there can plant links.
    static Workdir open(const std::filesystem::path& path);

    // The one already opened when there is one (held by the options passed
    // down from `contest run`), else path opened and checked now.
    static Workdir opened_or_open(const std::optional<Workdir>& opened,
                                  const std::filesystem::path& path) {
        return opened ? *opened : open(path);
    }

    const std::filesystem::path& path() const { return path_; }
    int fd() const { return fd_->get(); }

    // Creates or truncates the file rel (0600); no link is followed at any
    // step, a link where the file should be is refused. Returns its fd.
    UniqueFd create_file(const std::filesystem::path& rel) const;
    // Makes rel and its parents as real folders (0700); a link or a file in
    // the way is refused. Returns the folder's fd.
    UniqueFd make_dir(const std::filesystem::path& rel) const;
    // Removes rel and everything in it without following any link; nothing
    // when it is missing. Returns false when something could not go.
    bool remove_tree(const std::filesystem::path& rel) const;
    // path()/rel once make_dir has checked every step is a real folder: for
    // the child programs that take a path (make -C, tar -C).
    std::filesystem::path real_dir(const std::filesystem::path& rel) const;

  private:
    Workdir(std::filesystem::path path, UniqueFd fd);
    std::filesystem::path path_;
    std::shared_ptr<UniqueFd> fd_;  // shared: copies of a Workdir use one descriptor
};

// Removes the entry name of the folder dirfd (a folder with everything in
// it), never following a link. False when something could not go.
bool remove_tree_at(int dirfd, const char* name);

// Creates or truncates path (0600) without following a link in its last
// step; a link there is refused. For the logs whose folder was checked.
UniqueFd create_file_no_follow(const std::filesystem::path& path);

}  // namespace contest
