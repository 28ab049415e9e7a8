#pragma once
// Interrupts (SIGINT, SIGTERM, SIGHUP) become a flag and a readable fd, so
// every wait in contest can poll for them and unwind with Interrupted.
// Waits are held as std::chrono durations of double seconds, which do not
// overflow, and clamped where they meet poll()'s int milliseconds.
#include <chrono>

namespace contest {

void install_interrupt_handlers();
bool interrupted();
int interrupt_fd();           // readable once an interrupt arrived
void throw_if_interrupted();  // throws Interrupted
// Sleeps up to seconds; throws Interrupted if one arrives meanwhile. A
// sleep longer than one poll() can wait is several polls.
void interruptible_sleep(double seconds);

// While one lives, an interrupt that arrived before it is set aside, so
// that the clean-up an interrupt asks for (commands that undo what was armed)
// runs to its end instead of unwinding at its first wait. An interrupt that
// arrives meanwhile is seen as usual: a second Ctrl-C still stops the
// clean-up. The one set aside stands again when it ends.
class InterruptSetAside {
  public:
    InterruptSetAside();
    ~InterruptSetAside();
    InterruptSetAside(const InterruptSetAside&) = delete;
    InterruptSetAside& operator=(const InterruptSetAside&) = delete;

  private:
    bool was_interrupted_;
};

// poll()'s timeout for a wait of `left`: rounded up to whole milliseconds,
// clamped to 0 (none left, or NaN) and to the most its int holds.
int poll_timeout_ms(std::chrono::duration<double> left);

// start + length, or time_point::max() ("never") when that is past what
// the clock can hold.
std::chrono::steady_clock::time_point deadline_after(std::chrono::steady_clock::time_point start,
                                                     std::chrono::duration<double> length);

}  // namespace contest
