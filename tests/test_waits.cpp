// Sleeps and timeouts are held as durations that do not overflow: a wait of
// years is a long wait, never a wrapped int that poll() reads as "no wait"
// or a deadline in the past.
#include <catch2/catch.hpp>
#include <chrono>
#include <climits>
#include <cmath>

#include "contest/sys/process.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"

using namespace contest;
using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

TEST_CASE("poll's timeout rounds up and is clamped to what an int holds", "[waits]") {
    CHECK(poll_timeout_ms(Seconds(0.0001)) == 1);
    CHECK(poll_timeout_ms(Seconds(1.5)) == 1500);
    CHECK(poll_timeout_ms(Seconds(0)) == 0);
    CHECK(poll_timeout_ms(Seconds(-3)) == 0);
    CHECK(poll_timeout_ms(Seconds(NAN)) == 0);
    // 99999999999 s is 10^14 ms: far past INT_MAX, which int() would wrap.
    CHECK(poll_timeout_ms(Seconds(99999999999.0)) == INT_MAX);
    CHECK(poll_timeout_ms(Seconds(INFINITY)) == INT_MAX);
}

TEST_CASE("a deadline past what the clock holds is never, not the past", "[waits]") {
    const auto now = Clock::now();
    CHECK(deadline_after(now, Seconds(2)) == now + std::chrono::seconds(2));
    CHECK(deadline_after(now, Seconds(0)) == now);
    CHECK(deadline_after(now, Seconds(1e12)) == Clock::time_point::max());
    CHECK(deadline_after(now, Seconds(INFINITY)) == Clock::time_point::max());
}

TEST_CASE("wait_child with a timeout of centuries waits for the child", "[waits][process]") {
    const auto started = Clock::now();
    pid_t pid = spawn({"sleep", "0.2"});
    GroupGuard guard(pid);
    WaitHooks hooks;
    hooks.timeout = Seconds(1e12);
    ExitInfo ex = wait_child(pid, started, hooks);
    guard.release();
    CHECK_FALSE(ex.timed_out);
    CHECK(ex.exited_ok());
}
