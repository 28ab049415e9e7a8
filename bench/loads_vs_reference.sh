#!/usr/bin/env bash
# contest's loads side by side with reference tools on this machine:
#   io_load MiB/s  vs  dd if=/dev/zero bs=1M conv=fdatasync to the same disk  (goal >= 80%)
#   cpu_load       keeps >= 95% of the CPUs busy (from /proc/stat over the run)
#   mem_load       touch rate vs stress-ng --vm 1 --vm-method flip            (goal >= 50%)
# Environment: CONTEST (binary, default build/contest), WORKDIR (on the disk
# to test, default contest's own workdir), DURATION (s per measurement, 20),
# DD_MIB (dd's size, 4096), MEM_MIB (mem_load's and stress-ng's buffer, 2048).
# io_load runs as contest runs it: files as large as RAM (capped to the disk),
# so that most of what it writes has to reach the disk, as dd's fdatasync does.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CONTEST=${CONTEST:-$here/../build/contest}
WORKDIR=${WORKDIR:-${XDG_CACHE_HOME:-$HOME/.cache}/contest}
DURATION=${DURATION:-20}
DD_MIB=${DD_MIB:-4096}
MEM_MIB=${MEM_MIB:-2048}

[ -x "$CONTEST" ] || { echo "no contest binary at $CONTEST (make, or set CONTEST)" >&2; exit 3; }
if ! command -v stress-ng >/dev/null; then
    echo "installing stress-ng" >&2
    apt-get install -y stress-ng >/dev/null || { echo "stress-ng missing (apt-get install stress-ng)" >&2; exit 3; }
fi
mkdir -p "$WORKDIR"
scratch=$(mktemp -d "$WORKDIR/bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

json_field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{100 * a / b:.0f}%' if b else 'n/a')" "$1" "$2"; }

echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM, workdir on $(df --output=source "$WORKDIR" | tail -1)"
echo

# --- io_load vs dd ----------------------------------------------------------
sync
dd_out=$(dd if=/dev/zero of="$scratch/dd.zeros" bs=1M count="$DD_MIB" conv=fdatasync 2>&1 | tail -1)
rm -f "$scratch/dd.zeros"
dd_mibs=$(echo "$dd_out" | python3 -c 'import re,sys; m = re.match(r"(\d+) bytes.*copied, ([\d.]+) s", sys.stdin.read()); print(int(m[1]) / float(m[2]) / 2**20)')
sync
io_json=$("$CONTEST" load io_load --duration "$DURATION" --workdir "$scratch" --format json 2>/dev/null)
io_mibs=$(echo "$io_json" | json_field rate_per_s)
io_file=$(echo "$io_json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["facts"]["bytes"] // 2**20)')
sync
printf 'io_load   %8.1f MiB/s  (files of %s MiB, %s s)\n' "$io_mibs" "$io_file" "$DURATION"
printf 'dd        %8.1f MiB/s  (bs=1M count=%s conv=fdatasync)\n' "$dd_mibs" "$DD_MIB"
echo "io_load / dd = $(ratio "$io_mibs" "$dd_mibs")   (goal >= 80%)"
echo

# --- cpu_load: CPUs busy ----------------------------------------------------
cpu_ticks() { awk '/^cpu / {idle = $5 + $6; total = 0; for (i = 2; i <= 9; i++) total += $i; print idle, total}' /proc/stat; }
read -r idle0 total0 < <(cpu_ticks)
cpu_json=$("$CONTEST" load cpu_load --duration "$DURATION" --workdir "$scratch" --format json 2>/dev/null)
read -r idle1 total1 < <(cpu_ticks)
busy=$(python3 -c "print(f'{100 * (1 - ($idle1 - $idle0) / ($total1 - $total0)):.1f}')")
own=$(echo "$cpu_json" | python3 -c 'import json,sys; j = json.load(sys.stdin); print("%.1f" % (j["cpu_pct"] / j["cpus"]))')
echo "cpu_load  CPUs busy (all of /proc/stat) ${busy}%, cpu_load's own share ${own}% of $(nproc) CPUs   (goal >= 95%)"
echo

# --- mem_load vs stress-ng --vm flip ----------------------------------------
# stress-ng's vm bogo op is 4096 loop steps of 8 bytes (VM_BOGO_SHIFT 12), and
# flip walks the whole buffer 9 times a cycle (a fill, then a flip per bit):
# bogo ops/s x 32 KiB = bytes of buffer swept per second, every page of them
# referenced. mem_load's unit counts a page (4 KiB) per page referenced, so
# the two rates are both "memory covered per second".
mem_json=$("$CONTEST" load mem_load --duration "$DURATION" --load-size-mib "$MEM_MIB" --workdir "$scratch" --format json 2>/dev/null)
mem_gibs=$(echo "$mem_json" | json_field rate_per_s)
sng_ops=$(stress-ng --vm 1 --vm-method flip --vm-bytes "${MEM_MIB}m" -t "$DURATION" --metrics-brief 2>&1 |
          awk '/metrc:.* vm / {print $(NF-1)}')
sng_gibs=$(python3 -c "print($sng_ops * 4096 * 8 / 2**30)")
mem_words=$(python3 -c "print($mem_gibs * 2**30 / 4096 / 1e6)")
sng_words=$(python3 -c "print($sng_ops * 4096 * 8 / 1e6)")
printf 'mem_load  %8.2f GiB/s covered (%.1f M page references/s, buffer %s MiB)\n' "$mem_gibs" "$mem_words" "$MEM_MIB"
printf 'stress-ng %8.2f GiB/s covered (%.1f M byte writes/s, --vm 1 --vm-method flip --vm-bytes %sm)\n' "$sng_gibs" "$sng_words" "$MEM_MIB"
echo "mem_load / stress-ng (memory covered per second) = $(ratio "$mem_gibs" "$sng_gibs")   (goal >= 50%)"
echo "(by stores issued, stress-ng does more: it rewrites every byte, mem_load one word per page)"
