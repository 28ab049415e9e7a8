#pragma once
// The probe process's main loop: cyclic, audio, video and exec are one loop.
// Each period it sleeps to the period's absolute start, records latency =
// actual wake - intended wake, does the period's work if it has any (audio,
// video), and moves to the next period; a probe with a period of its own
// (probe_table.h) runs that instead: exec starts its program and records the
// start's time, request to reaping, missed at its threshold. A period's deadline is its
// end: cyclic misses it when it wakes a whole period late, audio and video when the work is not
// done by then (the rest of the work is dropped, as a late audio buffer is). Periods that are over
// before the probe gets to them are skipped: counted as missed, with no latency sample (one stall
// is one sample, not one per period it covered).
#include <cstdint>

#include "contest/latency/probe_options.h"
#include "contest/latency/probe_shared.h"

namespace contest::latency {

// Runs in the forked probe process until it is killed. raw_fd: where the
// window's raw samples go ("offset_ns latency_ns" lines), or -1. Returns
// (non-zero) only when it cannot run, after shared.fail(why).
int run_probe(const ProbeOptions& options, std::uint64_t chunks_per_period, int raw_fd,
              ProbeShared& shared);

}  // namespace contest::latency
