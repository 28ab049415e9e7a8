#pragma once
// A regular file read whole under a folder's descriptor, or why not: for
// files whose writer is not trusted (a guest's results share) and for the
// result files named by the user.
#include <cstdint>
#include <string>

namespace contest {

struct RegularFileRead {
    enum class Refusal { none, cannot_open, symlink, not_regular, too_large };
    std::string text;
    Refusal refusal = Refusal::none;
    int error = 0;  // errno, for cannot_open
    // "a symbolic link, not followed", "not a regular file", "too large" or
    // the error's text; "" when read.
    std::string why() const;
};

// The file name under dirfd (AT_FDCWD: a path) when it is a regular file of
// at most max_bytes. O_NONBLOCK, so a FIFO never blocks the reader; with
// follow_link false, a link in the last step is refused, not followed.
RegularFileRead read_regular_file_at(int dirfd, const char* name, std::uintmax_t max_bytes,
                                     bool follow_link);

}  // namespace contest
