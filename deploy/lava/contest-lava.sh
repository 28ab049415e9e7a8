#!/bin/sh
# Usage: deploy/lava/contest-lava.sh SUMMARY.json
#
# Inside a LAVA lava-test-shell: turns the file `contest run --summary-json`
# wrote into test cases, two per load: LOAD (pass when every run under it
# passed, its mean Time in seconds as the measurement) and LOAD-ratio (its
# Ratio over no_load). A load whose runs all failed gets LOAD as a fail with
# no measurement, and no ratio case. Needs python3 (to read the JSON) and
# LAVA's lava-test-case on PATH.
set -eu
summary=${1:?usage: contest-lava.sh SUMMARY.json}
[ -r "$summary" ] || { echo "contest-lava: no summary at $summary" >&2; exit 2; }

# One line a load: name, exit code, mean time (or -), ratio (or -).
python3 - "$summary" <<'PY' | while read -r load code time ratio; do
import json, sys
s = json.load(open(sys.argv[1]))
if s.get("schema_version") != 1:
    sys.exit("contest-lava: summary schema_version %r, expected 1" % s.get("schema_version"))
for e in s["loads"]:
    def num(v):
        return "-" if v is None else "%.6g" % v
    print(e["load"], e["exit_code"], num(e["mean_time_s"]), num(e["ratio"]))
PY
    result=pass
    [ "$code" = 0 ] || result=fail
    if [ "$time" = - ]; then
        lava-test-case "$load" --result "$result"
    else
        lava-test-case "$load" --result "$result" --measurement "$time" --units seconds
    fi
    if [ "$ratio" != - ]; then
        lava-test-case "$load-ratio" --result "$result" --measurement "$ratio" --units ratio
    fi
done
