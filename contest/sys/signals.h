#pragma once
// Interrupts (SIGINT, SIGTERM, SIGHUP) become a flag and a readable fd, so
// every wait in contest can poll for them and unwind with Interrupted.
namespace contest {

void install_interrupt_handlers();
bool interrupted();
int interrupt_fd();           // readable once an interrupt arrived
void throw_if_interrupted();  // throws Interrupted
// Sleeps up to seconds; throws Interrupted if one arrives meanwhile.
void interruptible_sleep(double seconds);

}  // namespace contest
