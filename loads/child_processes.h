#pragma once
// Helpers for loads made of several processes. The load's first process is
// its group leader; the ones it forks stay in its group (so one killpg stops
// them all) and die with it (PR_SET_PDEATHSIG).
#include <sys/types.h>

#include <functional>

namespace contest {

// Forks a member of the calling load's process group that runs fn and
// _exits. Returns the child's pid (in the parent). Throws on fork failure.
pid_t fork_load_member(const std::function<void()>& fn);

}  // namespace contest
