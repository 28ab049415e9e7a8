#!/usr/bin/env python3
"""A busy machine of the bench's own: other work outside contest's tree.

Two spinner processes take, together, 0.5 to 1.5 CPUs in a random on/off
pattern: every 1 to 4 s (seeded) the noise is either off or a new level in
[0.5, 1.5] CPUs; each spinner runs a duty cycle of a 10 ms period (the first
takes min(level, 1) of a CPU, the second the rest). Runs until killed.

    bench/noise_maker.py [--seed N] [--busy-share 0.5]
"""
import argparse
import os
import random
import signal
import sys
import time

PERIOD_S = 0.01


def spinner(duty_file):
    """Spin for duty x PERIOD_S of each period; the duty is re-read from a file."""
    duty = 0.0
    last_read = 0.0
    while True:
        now = time.monotonic()
        if now - last_read > 0.2:
            try:
                with open(duty_file) as f:
                    duty = float(f.read() or 0)
            except (OSError, ValueError):
                duty = 0.0
            last_read = now
        end = now + duty * PERIOD_S
        while time.monotonic() < end:
            pass
        time.sleep(max(0.0, PERIOD_S - duty * PERIOD_S))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--busy-share", type=float, default=0.5,
                    help="chance that a stretch is busy rather than off")
    ap.add_argument("--state", required=True, help="folder for the spinners' duty files")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    duties = [os.path.join(args.state, "duty%d" % i) for i in range(2)]
    for d in duties:
        with open(d, "w") as f:
            f.write("0")
    children = []
    for d in duties:
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            spinner(d)
            os._exit(0)
        children.append(pid)

    def stop(*_):
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in children:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while True:
        level = rng.uniform(0.5, 1.5) if rng.random() < args.busy_share else 0.0
        for i, d in enumerate(duties):
            share = min(level, 1.0) if i == 0 else max(level - 1.0, 0.0)
            tmp = d + ".tmp"
            with open(tmp, "w") as f:
                f.write("%.3f" % share)
            os.replace(tmp, d)
        time.sleep(rng.uniform(1, 4))


if __name__ == "__main__":
    main()
