#pragma once
// The start barrier of a duet's guests (--duet): every guest starts its
// n-th run's load and workload at the same moment as the others. Each
// guest's contest, before its n-th run (after the run's clean, caches and
// settle, before its load starts), writes ready-N into its results share
// and waits for go-N there; the host, once every guest still running has
// written ready-N (or a later one: a run that failed before its start skips
// its barrier), writes go-N into every share; the guest then writes
// started-N and starts. The host stamps each start with its own clock:
// started-N's modification time, which the host's kernel sets when the
// guest's 9p server creates the file, checked not to lie past the moment the
// host saw it (else that moment); one before go-N is kept, a start that
// did not wait, so that a barrier that failed shows.
//
// The shares are the guests' to write: the host reads nothing in them but
// the kind and time of a name (fstatat, no link followed, nothing opened:
// a FIFO or a link named ready-N is no ready), and writes go-N with a new
// file (whatever the guest put there under that name removed first; the
// new one made with O_EXCL and O_NOFOLLOW, never through a link).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contest/sys/unique_fd.h"

namespace contest {

// The guest's side: before its n-th run (from 1), ready-N in `folder`, the
// wait for go-N (throws Interrupted when interrupted), then started-N.
void wait_at_start_barrier(const std::filesystem::path& folder, unsigned n);

// One barrier released by the host.
struct BarrierRelease {
    unsigned run = 0;  // from 1
    double go_at = 0;  // host clock (CLOCK_REALTIME, s) when go-N was written
    // Per guest: its start, in seconds after go_at on the host's clock
    // (below 0: it did not wait); nullopt while not seen (a guest that
    // ended first, or skipped the run).
    std::vector<std::optional<double>> started;
    // Per guest: whether the start is the file's stamp (true) or the
    // moment the host saw it (false: the stamp lay past that moment).
    std::vector<bool> stamped;
    // The spread of the starts seen: the latest minus the earliest.
    std::optional<double> spread_s() const;
};

class StartBarrier {
  public:
    // The guests' shares (made by the host; each opened now, no link
    // followed), and the runs each guest takes: barriers 1..runs.
    StartBarrier(const std::vector<std::filesystem::path>& shares, unsigned runs);

    // One look at the shares: every barrier that each guest not `over` has
    // reached released, and the starts of the released ones stamped.
    void step(const std::vector<bool>& over);

    const std::vector<BarrierRelease>& releases() const { return releases_; }
    // Why a guest's go-N could not be written (said by the caller), once each.
    std::vector<std::string> take_problems();

  private:
    void release(unsigned run, const std::vector<bool>& over);
    void stamp_starts();

    std::vector<UniqueFd> shares_;
    std::vector<std::filesystem::path> shown_;
    unsigned runs_;
    std::vector<unsigned> reached_;  // per guest: the highest ready-N seen
    std::vector<BarrierRelease> releases_;
    std::vector<std::string> problems_;
};

}  // namespace contest
