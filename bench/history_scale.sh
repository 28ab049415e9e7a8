#!/usr/bin/env bash
# How does the results database (contest history, docs/history.md) scale?
# On SQLite (the default file) and on PostgreSQL (a server of the bench's own),
# with synthetic result files (bench/history_scale_files.py: one machine, 4
# loads x 3 runs a file, 61 to 63 measures a run, about 3% noise a run, steps
# planted in 23 series), it times:
#   - `contest history import` of 10,000 files into a new database (wall
#     time, files/s, the database's size) and the same import again (every
#     file already in, nothing added), at 2,500, 5,000 and 10,000 files;
#   - `contest history` (the list) and `contest history changes` over 1,000
#     series (machine x workload x load x measure: 4 workloads of 250
#     series) of 200 kernels each, and the same series cut to 50 and 100
#     kernels (the first of each: 200 and 400 files), and `changes` of 250,
#     500 and 1,000 of the 200-kernel series named on its command line;
# and prints one table (markdown) with the load average at the start and the
# end, the CPUs, contest's version and the source's commit. Each import goes
# into a new database (a SQLite file; a PostgreSQL database made for it),
# dropped once measured. `changes` also says how many planted steps it found.
#
#   bench/history_scale.sh [--scale F] [--scratch DIR] [--db sqlite|postgresql|both] [--seed N]
#     --scale F    the sizes times F (default 1: 10,000 files and series of 200
#                  kernels; 0.05: 500 files and series of 10 kernels; the
#                  1,000 series stay 1,000)
#     --scratch D  the scratch folder is made under D (default /var/tmp), and
#                  removed at the end; the full size takes about 2 GB there
#     --db         which databases (default both)
#     --seed N     the files' noise (default 57)
#   CONTEST=path/to/contest (default: build/contest next to this script)
#   Python is Debian's, /usr/bin/python3 (package python3), its standard library only.
#
# PostgreSQL runs as in tests/postgres_server.h: Debian's newest server
# (package postgresql), a cluster made by initdb in the scratch folder as
# nobody, a Unix socket in it and no TCP port, trust for the user contest
# only; with the server's defaults otherwise (fsync on, as a lab's store
# has it: SQLite syncs its WAL at each commit too). It is stopped on every
# path: the EXIT trap (INT and TERM exit through it), and a watchdog in its
# own session that stops it if this script is killed outright.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
contest=${CONTEST:-$here/../build/contest}
scale=1
parent=/var/tmp
which=both
seed=57

usage() { sed -n '/^#   bench/,/^#   CONTEST/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
        --scale) scale=${2:?}; shift 2 ;;
        --scratch) parent=${2:?}; shift 2 ;;
        --db) which=${2:?}; shift 2 ;;
        --seed) seed=${2:?}; shift 2 ;;
        -h | --help) usage ;;
        *) echo "history_scale: unknown argument '$1'" >&2; usage ;;
    esac
done
case $which in sqlite | postgresql | both) ;; *) usage ;; esac
say() { echo "history_scale: $*" >&2; }
# 10000 as 10,000.
commas() { sed ':a; s/\B[0-9]\{3\}\>/,&/; ta' <<<"$1"; }

[ -x "$contest" ] || { say "no contest binary at $contest (make, or CONTEST=...)"; exit 3; }
python=/usr/bin/python3
[ -x "$python" ] || { say "$python missing: install the Debian package python3 (make deps-bench)"; exit 3; }
[ -n "${EPOCHREALTIME:-}" ] || { say "bash 5 or newer is needed (EPOCHREALTIME)"; exit 3; }
pg_bin=
if [ "$which" != sqlite ]; then
    pg_bin=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    if ! [ -x "$pg_bin/initdb" ] || ! [ -x "$pg_bin/postgres" ] || ! [ -x "$pg_bin/psql" ]; then
        say "no PostgreSQL server: install the Debian package postgresql (make deps-bench), or --db sqlite"
        exit 3
    fi
    id nobody >/dev/null 2>&1 || { say "no user nobody to run PostgreSQL as"; exit 3; }
    command -v setpriv >/dev/null || { say "setpriv missing (util-linux)"; exit 3; }
fi
# The sizes: kernels a series (200 at --scale 1), and the import set's files.
kernels=$("$python" -c "import sys; s = float(sys.argv[1]); assert s > 0; print(max(4, round(200 * s)))" \
    "$scale" 2>/dev/null) || { say "--scale: a number above 0"; exit 2; }
workloads=50
series_workloads=4

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
cpus=$(getconf _NPROCESSORS_ONLN)
if "$python" -c "import sys; sys.exit(float(sys.argv[1]) <= 0.5 * int(sys.argv[2]))" \
    "${load_before%% *}" "$cpus"; then
    say "the machine is busy (load average $load_before on $cpus CPUs): the figures will be slower than on a quiet one"
fi

mkdir -p "$parent"
scratch=$(mktemp -d "$parent/contest-history-scale.XXXXXX")
pg_dir=$scratch/pg
# shellcheck source=scripts/scratch-postgres.sh
. "$(dirname "$0")/../scripts/scratch-postgres.sh"

cleanup() {
    scratch_postgres_stop
    rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_postgres() {
    chmod 755 "$scratch"  # nobody reaches its folder inside
    scratch_postgres_start
}
stop_postgres() { scratch_postgres_stop; }

psql_do() { "$pg_bin/psql" -X -q -At -v ON_ERROR_STOP=1 "host=$pg_dir/sock user=contest dbname=postgres" -c "$1"; }

# A new, empty database: its --db, in $db.
db_n=0
new_db() {
    db_n=$((db_n + 1))
    if [ "$1" = sqlite ]; then
        db=$scratch/db/h$db_n.sqlite
        mkdir -p "$scratch/db"
    else
        psql_do "CREATE DATABASE h$db_n"
        db="postgresql:///h$db_n?host=$pg_dir/sock&user=contest"
    fi
}
drop_db() {
    if [ "$1" = sqlite ]; then
        rm -f "$db" "$db-wal" "$db-shm"
    else
        psql_do "DROP DATABASE h$db_n"
    fi
}
# The database's size in bytes: SQLite's file (with its WAL, if any is
# left); PostgreSQL's tables with their indexes and TOAST, not the empty
# database's own catalogue.
db_bytes() {
    if [ "$1" = sqlite ]; then
        stat -c %s "$db" "$db-wal" 2>/dev/null | awk '{s += $1} END {print s}'
    else
        "$pg_bin/psql" -X -At "host=$pg_dir/sock user=contest dbname=h$db_n" -c \
            "SELECT SUM(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n
             ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = 'public'"
    fi
}

logs=$scratch/logs
mkdir -p "$logs"
usrbin_time=
if [ -x /usr/bin/time ]; then usrbin_time=/usr/bin/time; fi
# timed NAME CMD...: runs CMD, its output in $logs/NAME.out; $secs its wall
# time, $rss its largest resident memory in KiB (- without /usr/bin/time).
timed() {
    local name=$1 t0 t1
    shift
    local measure=()
    if [ -n "$usrbin_time" ]; then measure=("$usrbin_time" -f %M -o "$logs/$name.rss"); fi
    t0=$EPOCHREALTIME
    "${measure[@]}" "$@" >"$logs/$name.out" 2>"$logs/$name.err" || {
        cat "$logs/$name.err" >&2
        say "$name failed: $*"
        exit 1
    }
    t1=$EPOCHREALTIME
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    rss=-
    if [ -n "$usrbin_time" ]; then rss=$(tail -n 1 "$logs/$name.rss"); fi
}
rows=$scratch/rows.tsv
: >"$rows"
# row DB WHAT AMOUNT UNITS UNIT SIZE_BYTES NOTE: one line of the table.
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$secs" "$4" "$5" "$6" "$rss" "$7" >>"$rows"; }

say "scratch $scratch; making $(commas $((kernels * workloads))) files ($kernels kernels x $workloads workloads)"
t0=$EPOCHREALTIME
"$python" "$here/history_scale_files.py" --out "$scratch/gen" --kernels "$kernels" \
    --workloads "$workloads" --series-workloads "$series_workloads" --seed "$seed"
gen_s=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
gen_bytes=$(du -sb "$scratch/gen/files" | cut -f1)

# The first n kernels' folders of set (files or series).
folders() { local i; for ((i = 0; i < $2; i++)); do printf '%s/gen/%s/k%03d\n' "$scratch" "$1" "$i"; done; }
quarter=$(((kernels + 3) / 4))
half=$(((kernels + 1) / 2))

# One database's figures.
bench_db() {
    local kind=$1 name n files series_n runs listed want
    name=SQLite
    if [ "$kind" = postgresql ]; then name=PostgreSQL; fi
    for n in "$quarter" "$half" "$kernels"; do
        files=$((n * workloads))
        mapfile -t paths < <(folders files "$n")
        new_db "$kind"
        say "$name: importing $(commas "$files") files"
        timed "$kind-import-$files" "$contest" history import --db "$db" "${paths[@]}"
        grep -q "^imported $files file(s) .*; 0 already in\$" "$logs/$kind-import-$files.out" ||
            { cat "$logs/$kind-import-$files.out" >&2; say "the import did not add every file once"; exit 1; }
        runs=$(sed -n 's/^imported [0-9]* file(s) (\([0-9]*\) runs).*/\1/p' "$logs/$kind-import-$files.out")
        row "$name" import "$(commas "$files") files ($(commas "$runs") runs)" "$files" files "$(db_bytes "$kind")" ""
        timed "$kind-again-$files" "$contest" history import --db "$db" "${paths[@]}"
        grep -q "^imported 0 file(s) .*; $files already in\$" "$logs/$kind-again-$files.out" ||
            { cat "$logs/$kind-again-$files.out" >&2; say "the import again added something"; exit 1; }
        row "$name" "import again" "$(commas "$files") files, none added" "$files" files "$(db_bytes "$kind")" ""
        drop_db "$kind"
    done
    for n in "$quarter" "$half" "$kernels"; do
        files=$((n * series_workloads))
        mapfile -t paths < <(folders series "$n")
        new_db "$kind"
        say "$name: 1,000 series of $n kernels ($files files)"
        timed "$kind-series-import-$n" "$contest" history import --db "$db" "${paths[@]}"
        timed "$kind-list-$n" "$contest" history --db "$db"
        # Every series has n kernels, and there are 1,000 of them.
        listed=$(awk 'NR > 1' "$logs/$kind-list-$n.out" | wc -l)
        want=$(awk -v n="$n" 'NR > 1 && $2 == n' "$logs/$kind-list-$n.out" | wc -l)
        if [ "$listed" != 1000 ] || [ "$want" != 1000 ]; then
            say "$listed series listed, $want of them of $n kernels: expected 1,000 of $n"
            exit 1
        fi
        if [ "$n" = "$kernels" ]; then
            row "$name" list "1,000 series of $n kernels" 1000 series "$(db_bytes "$kind")" ""
        fi
        timed "$kind-changes-$n" "$contest" history changes --db "$db"
        row "$name" changes "1,000 series of $n kernels" 1000 series "" \
            "$(found "$logs/$kind-changes-$n.out" "$logs/$kind-list-$n.out" "$n")"
        if [ "$n" = "$kernels" ]; then
            # The same series named on the command line, a quarter, a half
            # and all of them: the cost a series, without the list's query.
            for series_n in 250 500 1000; do
                awk -v n="$series_n" 'NR > 1 && NR <= n + 1 { print $1 }' "$logs/$kind-list-$n.out" \
                    >"$logs/named-$series_n"
                mapfile -t paths <"$logs/named-$series_n"
                timed "$kind-changes-named-$series_n" "$contest" history changes --db "$db" "${paths[@]}"
                row "$name" "changes, named" "$(commas "$series_n") series of $n kernels" "$series_n" series "" \
                    "$(found "$logs/$kind-changes-named-$series_n.out" "$logs/$kind-list-$n.out" "$n" \
                        "$logs/named-$series_n")"
            done
        fi
        drop_db "$kind"
    done
}

# What a changes output found: its changes, and the planted steps within
# the first n kernels (and in the series named, if given) found: a change
# within 2 kernels of the step, or a twentieth of the series, as the
# simulation counts them.
found() {
    "$python" - "$scratch/gen/planted.json" "$@" <<'PY'
import json, re, sys
planted_json, changes_txt, list_txt, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
workload = {}
for line in open(list_txt).read().splitlines()[1:]:
    key = line.split()[0]
    workload[key] = line.rsplit(", ", 1)[1]
named = set(open(sys.argv[5]).read().split()) if len(sys.argv) > 5 else set(workload)
in_named = {(workload[k],) + tuple(k.split("/")[2:4]) for k in named}
shape = re.compile(r"^ *(?:#\d+ \[[a-z]+\] )?(\S+): .* between (\S+) \(the last of \d+\) and "
                   r"(\S+) \(the first of \d+\)$")
found = []
for line in open(changes_txt):
    m = shape.match(line.rstrip("\n"))
    if m:
        key = m.group(1)
        load, measure = key.split("/")[2:4]
        found.append((workload.get(key), load, measure, int(m.group(3).rsplit(".", 1)[1])))
near = max(2, n // 20)
steps = [p for p in json.load(open(planted_json)) if 3 <= p["index"] <= n - 3 and
         (p["workload"], p["load"], p["measure"]) in in_named]
hit = sum(any(f[:3] == (p["workload"], p["load"], p["measure"]) and abs(f[3] - p["index"]) <= near
              for f in found) for p in steps)
other = sum(not any(f[:3] == (p["workload"], p["load"], p["measure"]) and
                    abs(f[3] - p["index"]) <= near for p in steps) for f in found)
print("%d change(s): %d of %d planted steps, %d other" % (len(found), hit, len(steps), other))
PY
}

if [ "$which" != postgresql ]; then
    bench_db sqlite
fi
if [ "$which" != sqlite ]; then
    say "starting PostgreSQL ($pg_bin)"
    start_postgres
    pg_version=$("$pg_bin/postgres" --version)
    bench_db postgresql
    stop_postgres
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

commit=$(git -C "$here/.." describe --always --dirty 2>/dev/null || echo unknown)
sqlite_version=$("$python" -c 'import sqlite3; print(sqlite3.sqlite_version)')
echo "contest history at scale: $("$contest" --version) ($contest), source $commit; $cpus CPUs" \
    "($(sed -n 's/^model name[[:space:]]*: //p; T; q' /proc/cpuinfo)); load average" \
    "$load_before at the start, $load_after at the end"
echo "files: $(commas $((kernels * workloads))) made in $gen_s s ($(awk -v b="$gen_bytes" -v n=$((kernels * workloads)) \
    'BEGIN { printf "%.0f KiB", b / n / 1024 }') each; 1 machine, $workloads workloads, $kernels kernels," \
    "4 loads x 3 runs a file); --scale $scale, --seed $seed; SQLite $sqlite_version${pg_version:+, $pg_version}"
"$python" - "$rows" <<'PY'
import sys

rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
print()
print("| database | what | of | wall s | rate | database | max RSS | notes |")
print("|---|---|---|--:|--:|--:|--:|---|")
for db, what, amount, secs, units, unit, size, rss, note in rows:
    secs, units = float(secs), int(units)
    rate = "%.0f %s/s" % (units / secs, unit) if secs > 0 else "-"
    size = "%.0f MiB" % (int(size) / 2 ** 20) if size else ""
    rss = "%.0f MiB" % (int(rss) / 1024) if rss != "-" else "-"
    print("| %s | %s | %s | %.2f | %s | %s | %s | %s |" % (db, what, amount, secs, rate, size, rss,
                                                          note))
# How the cost grows: the largest size's time over the smallest's, against
# the ratio of their sizes (linear: the same).
print()
by = {}
for db, what, amount, secs, units, unit, size, rss, note in rows:
    key = (db, what if what != "changes, named" else "changes of named series")
    if what == "changes":
        key = (db, "changes over kernels a series")
        units = amount.split(" of ")[1].split()[0]
    by.setdefault(key, []).append((int(units), float(secs)))
for (db, what), points in by.items():
    if len(points) < 2:
        continue
    (n0, s0), (n1, s1) = min(points), max(points)
    print("%s, %s: %d to %d (x%.2f), time x%.2f" % (db, what, n0, n1, n1 / n0, s1 / s0 if s0 else 0))
PY
