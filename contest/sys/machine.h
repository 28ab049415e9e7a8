#pragma once
// How many CPUs this machine has, and contest's one rule for how many
// processes a parallel thing (the workload's make -jN, process_load's ring)
// uses by default.
namespace contest {

// CPUs online now (at least 1).
unsigned online_cpus();

// contest's parallelism: 4 x the CPUs, the 2002 contest's rule, so that
// every CPU always has runnable work and the scheduler has to choose.
unsigned contest_parallelism(unsigned cpus = online_cpus());

}  // namespace contest
