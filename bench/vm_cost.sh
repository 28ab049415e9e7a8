#!/bin/sh
# What a `contest run --kernel` figure means here: how long a guest takes to
# boot, and how much slower the same synthetic compile runs in the guest
# than on the host (under TCG, software emulation, many times slower).
#
#   bench/vm_cost.sh [SIZE [PACKAGE [ACCEL]]]
#     SIZE     --synthetic-size (default 2)
#     PACKAGE  the guest kernel, as --kernel's IMAGE (default: the package
#              linux-image-amd64 depends on)
#     ACCEL    --vm-accel (default auto)
#   CONTEST=path/to/contest (default: build/contest next to this script)
#   WORKDIR=folder (default: a fresh one under /tmp; give one to keep the
#   fetched package between runs)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
contest=${CONTEST:-$here/../build/contest}
size=${1:-2}
package=${2:-$(apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1)}
accel=${3:-auto}
scratch=$(mktemp -d /tmp/contest-vm-cost.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
workdir=${WORKDIR:-$scratch/work}

"$contest" run -q -k host -n 1 -w synthetic --synthetic-size "$size" -j 2 \
    --workdir "$workdir" --results "$scratch/results" no_load >/dev/null 2>"$scratch/err" || {
    cat "$scratch/err" >&2
    exit 1
}
"$contest" run -q --kernel guest="$package" --kernel again="$package" --vm-accel "$accel" -n 1 \
    -w synthetic --synthetic-size "$size" -j 2 --workdir "$workdir" \
    --results "$scratch/results" no_load >/dev/null 2>"$scratch/err" || {
    cat "$scratch/err" >&2
    exit 1
}
python3 - "$scratch/results" "$package" "$size" <<'PY'
import glob, json, sys
results, package, size = sys.argv[1:]
def one(label):
    return json.load(open(sorted(glob.glob(f"{results}/{label}/*.json"))[-1]))
host = one("host")["runs"][0]["wall_s"]
print(f"synthetic compile, --synthetic-size {size} -j 2, no_load; guest kernel {package}")
print(f"host:        {host:8.2f} s")
for label in ("guest", "again"):
    f = one(label)
    vm, run = f["config"]["vm"], f["runs"][0]
    boot = vm["boots"][0]
    print(f"{label:6s} ({vm['accel']}, {vm['cpus']} CPUs, {vm['memory_mib']} MiB): "
          f"{run['wall_s']:8.2f} s, {run['wall_s'] / host:6.1f}x the host; "
          f"boot to init {boot['up_s']:.1f} s, whole guest {boot['total_s']:.1f} s")
PY
