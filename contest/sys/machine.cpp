#include "contest/sys/machine.h"

#include <unistd.h>

namespace contest {

unsigned online_cpus() {
    long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<unsigned>(n) : 1u;
}

unsigned contest_parallelism(unsigned cpus) {
    return 4 * cpus;
}

}  // namespace contest
