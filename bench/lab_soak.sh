#!/usr/bin/env bash
# A lab left running: the soak of tests/test_lab_soak.cpp at its long size.
# Three hosts, each a forked child of the test running the robot's loop
# (contest track's run_track) over the stand-in bench, into one PostgreSQL
# of the test's own, with a step planted at a known commit, a slow random
# walk of each host's speed, and faults at random moments (the server
# stopped and started again, loops SIGKILLed mid-point and mid-bisection, a
# full results file system, a second track beside the first). `make
# test-long` runs it at 12 points a host; this at 40 (seconds a seed: the
# stand-in bench measures in milliseconds; an hour is many seeds), several
# seeds one after the other, and prints each run's
# counts (points, runs, faults injected, owed saves caught up, mails, starts,
# seconds) and the table docs/track.md quotes.
#
#   bench/lab_soak.sh [--points N] [--seeds S1,S2,...]
#     --points N   points a host (default 40)
#     --seeds      the soaks' seeds (default: one fresh seed)
#   TESTS=path/to/contest_tests (default: build/tests/contest_tests next to this script)
#   As root (the soak's PostgreSQL runs as nobody; its tmpfs needs a mount).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tests=${TESTS:-$here/../build/tests/contest_tests}
points=40
seeds=""
while [ $# -gt 0 ]; do
    case $1 in
        --points) points=$2; shift 2 ;;
        --seeds) seeds=$2; shift 2 ;;
        *) echo "bench/lab_soak.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
[ -x "$tests" ] || { echo "bench/lab_soak.sh: no test binary at $tests (make test-build)" >&2; exit 2; }
[ -n "$seeds" ] || seeds=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "| seed | points | runs | faults | owed caught up | mails | starts | s | result |"
echo "|---|---|---|---|---|---|---|---|---|"
for seed in ${seeds//,/ }; do
    log=$(mktemp)
    status=0
    CONTEST_SOAK_POINTS=$points CONTEST_SOAK_SEED=$seed "$tests" "[.lab-soak]" >"$log" 2>&1 || status=$?
    line=$(sed -n 's/^lab soak: \([0-9]*\) points, \([0-9]*\) runs, \([0-9]*\) faults injected, \([0-9]*\) owed saves caught up, \([0-9]*\) mails, \([0-9]*\) starts, \([0-9]*\) s.*/\1 | \2 | \3 | \4 | \5 | \6 | \7/p' "$log")
    result=passed
    [ "$status" = 0 ] || result="failed ($status): $(grep -m1 -o 'pending: [^:]*' "$log" || echo see log)"
    echo "| $seed | ${line:-none} | $result |"
    [ "$status" = 0 ] || cp "$log" "/var/tmp/lab-soak-$seed.log"
    rm -f "$log"
done
