#pragma once
// A file descriptor that closes itself, and a write that does not stop short.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace contest {

// Owns a file descriptor: closed when this goes out of scope.
class UniqueFd {
  public:
    explicit UniqueFd(int fd = -1) : fd_(fd) {}
    UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
    UniqueFd& operator=(UniqueFd&& o) noexcept {
        reset(o.release());
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd() { reset(); }
    int get() const { return fd_; }
    int release() {
        int fd = fd_;
        fd_ = -1;
        return fd;
    }
    void reset(int fd = -1) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }
    // Closes it now, for a caller that must know whether the close worked
    // (a write's error may only show there): ::close's result, 0 when none
    // was open.
    int close() { return fd_ >= 0 ? ::close(release()) : 0; }

  private:
    int fd_;
};

// Writes all of data to fd, retrying short writes and EINTR; returns the
// bytes write() accepted (fewer only on error, with errno set: ENOSPC where
// write() took nothing).
std::uint64_t write_all(int fd, const char* data, std::size_t size);
// The same for text: true when all of it went.
inline bool write_all(int fd, std::string_view text) {
    return write_all(fd, text.data(), text.size()) == text.size();
}

}  // namespace contest
