#include "contest/run/rounds/cache_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "contest/sys/progress.h"
#include "contest/sys/unique_fd.h"

namespace contest {

std::string drop_caches() {
    ::sync();
    UniqueFd fd(::open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC));
    if (fd.get() < 0) return std::string("not dropped: ") + std::strerror(errno);
    if (::write(fd.get(), "3", 1) != 1) return std::string("not dropped: ") + std::strerror(errno);
    return "dropped";
}

std::string CacheState::before_run(const LoadInfo& info) {
    if (!info.drops_caches()) return "warm";
    if (!drop_) return "not dropped: --no-drop-caches";
    std::string state = drop_caches();
    if (state != "dropped" && !warning_given_) {
        warning_given_ = true;
        warn("caches " + state + " (run as root to drop them)");
    }
    return state;
}

}  // namespace contest
