#pragma once
// Where every process of a run lives so that contest can kill them all as a
// whole, even after its own death: a cgroup v2 leaf with cgroup.kill where
// the kernel has one, watched by a small guardian process that kills the
// leaf's processes the moment contest dies (SIGKILL included). The parent-
// death signal reaches only direct children; a workload's grandchildren
// (`sh -c 'sleep 60 &'`) are only caught this way.
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace contest {

class RunContainment {
  public:
    // Moves contest (and so everything it starts from now on) into a fresh
    // leaf contest-<pid> of its cgroup v2, with its guardian; where that is
    // not possible, containment is process groups plus the parent-death
    // signal, and description() says why.
    static std::unique_ptr<RunContainment> set_up();
    // The caller's containment when `held` describes one (null: nothing
    // made, the caller's holds the run); else one set up, `held` then its
    // description. For a run whose caller may hold the contest's one.
    static std::unique_ptr<RunContainment> unless_held(std::string& held);
    // How many set_up made in this process: one a contest, a run's step
    // that hands over to the journal owning its run handing its own on.
    static unsigned set_ups();
    // Moves contest back out, kills what is left in the leaf, removes it and
    // ends the guardian.
    ~RunContainment();
    RunContainment(const RunContainment&) = delete;
    RunContainment& operator=(const RunContainment&) = delete;

    // For the result file's config: "cgroup v2 leaf /sys/fs/cgroup/contest-1234
    // (cgroup.kill)" or "process groups + parent-death signal (<why no cgroup>)".
    const std::string& description() const { return description_; }

  private:
    RunContainment() = default;
    std::string description_;
    std::string leaf_, home_;  // the leaf's folder; the cgroup contest came from
    pid_t guardian_ = -1;
};

// The folder of the run's leaf this process is in (contest-<its pid>, as
// RunContainment::set_up made it), "" when it is in none: everything in it
// is of contest's run.
std::string own_run_leaf();

// Leaves contest-<pid> of dead contests in this process's cgroup v2: their
// processes killed, the leaves removed. Returns one line per leaf removed.
std::vector<std::string> remove_stale_cgroups();

}  // namespace contest
