#include "contest/run/rounds/start_barrier.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "contest/sys/errors.h"
#include "contest/sys/signals.h"
#include "contest/sys/text.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// A guest polls its share this often for go-N: a 9p stat a time, little
// beside the spread it bounds (the host's own look comes every 10 ms).
constexpr double kGuestPollS = 0.005;
// How far a file's time may lag CLOCK_REALTIME (a file system stamps with
// the coarse clock, a tick behind at most: 10 ms at HZ=100).
constexpr double kCoarseClockS = 0.01;

std::string name_of(const char* what, unsigned n) {
    return std::string(what) + "-" + std::to_string(n);
}

double realtime_now() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The guest's own share, written by the guest: a new empty file.
void touch(const fs::path& path) {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (fd.get() < 0)
        throw EnvironmentError("the start barrier: cannot write " + path.string() + ": " +
                               std::strerror(errno));
}

// The regular file `name` under dirfd, not followed: its stat, or nullopt.
std::optional<struct stat> regular_at(int dirfd, const std::string& name) {
    struct stat st {};
    if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        return std::nullopt;
    return st;
}

}  // namespace

void wait_at_start_barrier(const fs::path& folder, unsigned n) {
    touch(folder / name_of("ready", n));
    const fs::path go = folder / name_of("go", n);
    std::error_code ec;
    while (!fs::exists(go, ec)) interruptible_sleep(kGuestPollS);
    touch(folder / name_of("started", n));
}

std::optional<double> BarrierRelease::spread_s() const {
    std::optional<double> lo, hi;
    for (const auto& s : started)
        if (s) {
            lo = lo ? std::min(*lo, *s) : *s;
            hi = hi ? std::max(*hi, *s) : *s;
        }
    if (!lo) return std::nullopt;
    return *hi - *lo;
}

StartBarrier::StartBarrier(const std::vector<fs::path>& shares, unsigned runs)
    : shown_(shares), runs_(runs), reached_(shares.size(), 0) {
    for (const auto& share : shares) {
        shares_.emplace_back(
            ::open(share.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (shares_.back().get() < 0)
            throw EnvironmentError("the start barrier: cannot open the share " + share.string() +
                                   ": " + std::strerror(errno));
    }
}

void StartBarrier::step(const std::vector<bool>& over) {
    for (std::size_t g = 0; g < shares_.size(); ++g)
        for (unsigned n = runs_; n > reached_[g]; --n)
            if (regular_at(shares_[g].get(), name_of("ready", n))) {
                reached_[g] = n;
                break;
            }
    while (releases_.size() < runs_) {
        const unsigned n = static_cast<unsigned>(releases_.size()) + 1;
        bool all = true, anyone = false;
        for (std::size_t g = 0; g < shares_.size(); ++g)
            if (!over[g]) {
                anyone = true;
                all = all && reached_[g] >= n;
            }
        if (!anyone || !all) break;
        release(n, over);
    }
    stamp_starts();
}

void StartBarrier::release(unsigned run, const std::vector<bool>& over) {
    const std::string go = name_of("go", run);
    BarrierRelease r;
    r.run = run;
    r.started.assign(shares_.size(), std::nullopt);
    r.stamped.assign(shares_.size(), false);
    r.go_at = realtime_now();
    for (std::size_t g = 0; g < shares_.size(); ++g) {
        if (over[g]) continue;
        const int dir = shares_[g].get();
        // Whatever the guest made under that name, a link or a FIFO among
        // them, goes first (unlinkat never follows the name's last part).
        if (::unlinkat(dir, go.c_str(), 0) != 0 && errno != ENOENT)
            (void)::unlinkat(dir, go.c_str(), AT_REMOVEDIR);
        UniqueFd fd(::openat(dir, go.c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                             0644));
        if (fd.get() < 0)
            problems_.push_back("cannot write " + printable((shown_[g] / go).string()) +
                                " (the guest's run waits there): " + std::strerror(errno));
    }
    releases_.push_back(std::move(r));
}

void StartBarrier::stamp_starts() {
    for (auto& r : releases_) {
        const std::string started = name_of("started", r.run);
        for (std::size_t g = 0; g < shares_.size(); ++g) {
            if (r.started[g]) continue;
            const auto st = regular_at(shares_[g].get(), started);
            if (!st) continue;
            const double seen = realtime_now();
            const double stamp = static_cast<double>(st->st_mtim.tv_sec) +
                                 static_cast<double>(st->st_mtim.tv_nsec) * 1e-9;
            // A stamp from the future is none (the guest set it): the
            // moment seen stands in. One before go-N is a start that did
            // not wait (its guest's contest made it early), kept as it is,
            // below 0, but for a file system's clock ticking coarser than
            // CLOCK_REALTIME (jiffies): up to 10 ms before go-N is at go-N.
            r.stamped[g] = stamp <= seen;
            const double after = (r.stamped[g] ? stamp : seen) - r.go_at;
            r.started[g] = after < 0 && after >= -kCoarseClockS ? 0.0 : after;
        }
    }
}

std::vector<std::string> StartBarrier::take_problems() {
    return std::exchange(problems_, {});
}

}  // namespace contest
