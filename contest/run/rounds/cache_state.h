#pragma once
// The page cache before a run: dropped for every load but cacherun (whose
// point is the caches no_load's compile left), where the machine permits.
#include <string>

#include "loads/registry.h"

namespace contest {

// Drops the page cache, dentries and inodes (after sync). Returns "dropped",
// or "not dropped: <why>" when the machine won't let us.
std::string drop_caches();

// The cache state of each run of one suite, as its record holds it.
class CacheState {
  public:
    explicit CacheState(bool drop_caches) : drop_(drop_caches) {}
    // Sets the caches for a run of `info`: "warm" for a load that keeps
    // them, else dropped or why not. The first failure to drop is warned
    // about once on stderr.
    std::string before_run(const LoadInfo& info);

  private:
    bool drop_;
    bool warning_given_ = false;
};

}  // namespace contest
