#include "contest/sys/cpu_affinity.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "contest/sys/errors.h"

namespace contest {
namespace {

// Large enough for any machine the kernel supports (CONFIG_NR_CPUS is at
// most 8192 on x86_64).
constexpr int kMaxCpus = 8192;

struct CpuMask {
    CpuMask() : set(CPU_ALLOC(kMaxCpus)), size(CPU_ALLOC_SIZE(kMaxCpus)) {
        if (!set) throw EnvironmentError("cannot allocate a CPU set");
        CPU_ZERO_S(size, set);
    }
    ~CpuMask() { CPU_FREE(set); }
    CpuMask(const CpuMask&) = delete;
    CpuMask& operator=(const CpuMask&) = delete;

    std::vector<int> cpus() const {
        std::vector<int> out;
        for (int c = 0; c < kMaxCpus; ++c)
            if (CPU_ISSET_S(static_cast<std::size_t>(c), size, set)) out.push_back(c);
        return out;
    }

    cpu_set_t* set;
    std::size_t size;
};

}  // namespace

std::vector<int> cpus_of(pid_t tid) {
    CpuMask mask;
    if (::sched_getaffinity(tid, mask.size, mask.set) != 0) return {};
    return mask.cpus();
}

std::vector<int> allowed_cpus() {
    return cpus_of(0);
}

void pin_to_cpus(pid_t tid, const std::vector<int>& cpus) {
    CpuMask mask;
    for (const int c : cpus)
        if (c >= 0 && c < kMaxCpus) CPU_SET_S(static_cast<std::size_t>(c), mask.size, mask.set);
    if (::sched_setaffinity(tid, mask.size, mask.set) != 0)
        throw EnvironmentError("cannot pin process " + std::to_string(tid) + " to CPUs " +
                               cpu_list_text(cpus) + ": " + std::strerror(errno));
}

std::vector<pid_t> threads_of(pid_t pid) {
    std::vector<pid_t> out;
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
        const std::string name = e.path().filename().string();
        if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos)
            out.push_back(static_cast<pid_t>(std::stol(name)));
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string cpu_list_text(const std::vector<int>& cpus) {
    std::vector<int> sorted = cpus;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::string out;
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
        if (!out.empty()) out += ',';
        out += std::to_string(sorted[i]);
        if (j > i) out += '-' + std::to_string(sorted[j]);
        i = j + 1;
    }
    return out;
}

}  // namespace contest
