#!/bin/sh
# Usage: tests/fleet/test-ansible.sh SOURCE_DIR CONTEST_BINARY BECOME_ROOT
#
# deploy/ansible/site.yml for real, against this machine only, with the
# package `make deb` makes of the contest already built (the role's build
# from source is the same playbook with contest_package unset; building
# contest a second time here would be most of the test's time):
#  0. the package: cpack from CONTEST_BINARY's build folder; its metadata
#     names the binary's libraries, and apt could install it here;
#  1. one host (ansible_connection=local): the role copies the package and
#     unpacks it (contest_package_install=unpack: nothing installed on this
#     machine), runs a tiny suite, fetches the result file into a controller
#     folder, and the report play prints the table;
#  2. again, over two hosts one at a time, the first a closed port on
#     127.0.0.2: the play finishes and names that host as failed; on the
#     other the install steps report no change, and its new result comes back;
#     a third is given the installed binary and installs nothing; each play's
#     files are in a folder of its own and its report covers only them;
#  3. boot rounds in sudo mode (below).
# Exit 77 (ctest's SKIP_RETURN_CODE) with the reason when it cannot run here.
set -eu
if ! command -v ansible-playbook >/dev/null 2>&1; then
    echo "skipped: ansible-playbook not installed (make deps-test installs it)"
    exit 77
fi
src=$(cd "$1" && pwd)
become_root=$3
case $2 in
    /*) contest=$2 ;;
    *) contest=$PWD/$2 ;;
esac
if ! command -v git >/dev/null 2>&1 || ! git -C "$src" rev-parse --verify HEAD >/dev/null 2>&1; then
    echo "skipped: $src is not a git checkout (the playbook deploys a git commit)"
    exit 77
fi

# The commit now, for every run: a commit made while the test runs must not
# pass for a change of source between its runs.
ref=$(git -C "$src" rev-parse --verify HEAD)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/contest-fleet-test.XXXXXX")
# The lab's results database: a PostgreSQL server of the test's own, as
# nobody, in a folder nobody can enter (TMPDIR may be a 0700 one).
pg_parent=$(mktemp -d /tmp/contest-fleet-pg.XXXXXX)
chmod 755 "$pg_parent"
pg_dir=$pg_parent/pg
# shellcheck source=scripts/scratch-postgres.sh
. "$src/scripts/scratch-postgres.sh"
trap 'scratch_postgres_stop; rm -rf "$scratch" "$pg_parent"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
host_dir=$scratch/host  # the "host"'s contest_remote_dir
# Ansible's own state stays in the scratch folder, and its output plain.
export ANSIBLE_LOCAL_TEMP="$scratch/ansible/local" ANSIBLE_REMOTE_TEMP="$scratch/ansible/remote"
export ANSIBLE_ASYNC_DIR="$scratch/ansible/async" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
export ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_RETRY_FILES_ENABLED=False
# Each module sent to its host on the command's input, not as a file made,
# run and removed there: a third of the processes a task took (as many
# fleets run it; the role does not depend on it).
export ANSIBLE_PIPELINING=True
export ANSIBLE_CONFIG="$scratch/ansible.cfg"
: >"$ANSIBLE_CONFIG"

fail() {
    echo "test-ansible: $*" >&2
    exit 1
}

# show NAME: the log, when a check fails.
show() {
    sed 's/^/  | /' "$scratch/$1.log" >&2
}

# 0. The package, as `make deb` makes it, of the binary under test.
build_dir=$(dirname "$contest")
[ -f "$build_dir/CPackConfig.cmake" ] || fail "no CPackConfig.cmake beside $contest (not a cmake build folder)"
command -v dpkg-shlibdeps >/dev/null 2>&1 || fail "dpkg-shlibdeps missing (make deps-test installs dpkg-dev)"
(cd "$build_dir" && cpack -G DEB -B "$scratch/pkg") >"$scratch/cpack.log" 2>&1 ||
    { show cpack; fail "cpack -G DEB failed"; }
set -- "$scratch/pkg"/contest_*.deb
[ -f "$1" ] || { show cpack; fail "cpack made no contest_*.deb"; }
deb=$1
dpkg-deb -I "$deb" >"$scratch/deb-info.log" || fail "dpkg-deb -I cannot read $deb"
grep -q '^ Package: contest$' "$scratch/deb-info.log" || { show deb-info; fail "the package is not named contest"; }
grep -q '^ Depends:.*libboost-program-options' "$scratch/deb-info.log" ||
    { show deb-info; fail "the package's Depends do not name the binary's Boost library"; }
dpkg-deb -c "$deb" | grep ' \./usr/bin/contest$' >/dev/null || fail "the package holds no /usr/bin/contest"
# apt resolves its Depends here (a simulation: nothing is installed).
apt-get install -s "$deb" >"$scratch/apt-sim.log" 2>&1 || { show apt-sim; fail "apt could not install the package"; }

scratch_postgres_start

# The tiny suite; the apt lists are never refreshed (every package is here,
# so no network is needed), and as root there is no sudo to become through.
cat >"$scratch/vars.json" <<JSON
{
  "contest_source_dir": "$src",
  "contest_git_ref": "$ref",
  "contest_package": "$deb",
  "contest_package_install": "unpack",
  "contest_controller_binary": "$contest",
  "contest_args": "-w command --workload-cmd 'sleep 0.2' -n 1 --warmup 0 no_load",
  "contest_extra_packages": [],
  "contest_apt_cache_valid_time_s": 315360000,
  "contest_become": false,
  "contest_poll_interval_s": 1,
  "contest_db": "$pg_uri"
}
JSON

# run NAME INVENTORY CONTROLLER_DIR [ansible-playbook args]: the playbook's
# output goes to $scratch/NAME.log; its exit code to $status.
run() {
    name=$1 inventory=$2 ctl=$3
    shift 3
    start=$(date +%s)
    status=0
    ansible-playbook -i "$inventory" "$src/deploy/ansible/site.yml" -e "@$scratch/vars.json" \
        -e "contest_results_dir=$ctl/results contest_summaries_dir=$ctl/summaries" \
        -e "contest_report_file=$ctl/report.txt contest_controller_cache_dir=$scratch/cache" \
        "$@" >"$scratch/$name.log" 2>&1 || status=$?
    echo "test-ansible: $name: ansible-playbook exited $status after $(($(date +%s) - start)) s"
}

# task_states LOG TASK: the states (ok, changed, skipping, failed, fatal)
# the default callback printed under each "TASK [contest : TASK]".
task_states() {
    awk -v want="$2" '
        /^TASK \[/ { t = $0; sub(/^TASK \[(contest : )?/, "", t); sub(/\] \**$/, "", t); on = (t == want); next }
        on && /^(ok|changed|skipping|failed|fatal): / { s = $1; sub(/:$/, "", s); print s }
    ' "$1"
}

# report_runs REPORT LABEL LOAD: the [runs] of LABEL's row in LOAD's block of
# a `contest report` table.
report_runs() {
    awk -v label="$2" -v load="$3:" '
        $0 == load { on = 1; next }
        /^[^ ]+:$/ { on = 0 }
        on && $1 == label { print $2; exit }
    ' "$1"
}

kernel=$(uname -r)
# Each host's folder is its inventory's (an extra variable would be every host's).
printf '[fleet]\nfleet-local ansible_connection=local ansible_python_interpreter=/usr/bin/python3 contest_remote_dir=%s\n' "$host_dir" \
    >"$scratch/one.ini"

# 1. The package path: copy, unpack, run, fetch, report.
run first "$scratch/one.ini" "$scratch/ctl"
[ "$status" = 0 ] || { show first; fail "the first run failed"; }
[ -x "$host_dir/bin/contest" ] || { show first; fail "no contest was installed on the host"; }
"$host_dir/bin/contest" --version >/dev/null || fail "the host's contest (from the package) does not run"

# Each play's files in a folder of its own (its play id).
set -- "$scratch/ctl/results"/*/
[ $# = 1 ] && [ -d "$1" ] || { show first; fail "the first play did not make one folder of its own in results/ ($*)"; }
first_play=$1
set -- "$first_play/$kernel"/fleet-local-*.json
[ -f "$1" ] || { show first; fail "no result file fetched into results/<play>/$kernel/"; }
grep -q '"label": "'"$kernel"'"' "$1" || fail "the fetched result's label is not $kernel"
grep -q '"status": "ok"' "$1" || fail "the fetched result has no run that passed"
[ -f "$scratch/ctl/summaries/fleet-local.json" ] || fail "no summary fetched"
grep -q '"failed_runs": 0' "$scratch/ctl/summaries/fleet-local.json" || fail "the summary counts failed runs"
# The report's table: the no_load block with this kernel's row.
grep -q '^no_load' "$scratch/ctl/report.txt" || { cat "$scratch/ctl/report.txt" >&2; fail "no table in the report"; }
grep -q "^$kernel " "$scratch/ctl/report.txt" || { cat "$scratch/ctl/report.txt" >&2; fail "no row for $kernel"; }
grep -q "$kernel" "$scratch/first.log" || fail "the playbook did not show the report"
for task in "Copy the contest package" "Unpack the contest package" "Link bin/contest to the package's binary"; do
    task_states "$scratch/first.log" "$task" | grep -qx changed || { show first; fail "'$task' did not run the first time"; }
done
# The lab's database holds the host's run, saved by the host as it ran: the
# controller's import of the fetched file finds it already in.
"$contest" history --db "$pg_uri" --measure wall_s >"$scratch/pg-series.log" 2>&1 ||
    { cat "$scratch/pg-series.log" >&2; fail "contest history cannot read the lab's database"; }
grep -q '/no_load/wall_s ' "$scratch/pg-series.log" ||
    { cat "$scratch/pg-series.log" >&2; fail "the host's run is not in the lab's database"; }
grep -q 'imported 0 file(s) (0 runs) into postgresql:.*; 1 already in' "$scratch/first.log" ||
    { show first; fail "the controller's import did not find the host's file already in the lab's database"; }

# 2. Again, over two hosts one at a time (serial 1), the first unreachable:
# a port on 127.0.0.2 that nothing listens on (bound and released just now),
# over ssh. Its batch must not end the play before the other's; and on the
# reachable host, installed by step 1, no install step does anything while
# the suite runs again; a third host is given the binary installed above
# (contest_binary), so nothing is installed for it; its folder is its own, as
# another machine's would be. (One playbook run for both: each costs ~15 s of
# Ansible's own start-up.)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.2", 0)); print(s.getsockname()[1])')
cat >"$scratch/two.ini" <<INI
[fleet]
fleet-down ansible_host=127.0.0.2 ansible_port=$port ansible_connection=ssh ansible_user=nobody
fleet-local ansible_connection=local ansible_python_interpreter=/usr/bin/python3 contest_remote_dir=$host_dir
fleet-given ansible_connection=local ansible_python_interpreter=/usr/bin/python3 contest_binary=$host_dir/bin/contest contest_remote_dir=$scratch/given
INI
run second "$scratch/two.ini" "$scratch/ctl" -e contest_serial=1 -e contest_db=
[ "$status" != 0 ] || { show second; fail "the play passed though a host was unreachable"; }
for task in "Checksum the given package" "Make the package folder" "Copy the contest package" \
    "Unpack the contest package" "Make the bin folder" "Link bin/contest to the package's binary"; do
    states=$(task_states "$scratch/second.log" "$task")
    [ -n "$states" ] || { show second; fail "'$task' did not show in the second run"; }
    case "$states" in *changed* | *failed* | *fatal*)
        show second
        fail "'$task' was '$states' in the second run: it should do nothing"
        ;;
    esac
done
grep -q '^fleet-local *: .*failed=0' "$scratch/second.log" || { show second; fail "the recap shows a failure on the reachable host"; }
grep -q 'contest did not finish on: fleet-down"' "$scratch/second.log" ||
    { show second; fail "the failed host is not named"; }
grep -q '"fleet-down: unreachable: ' "$scratch/second.log" ||
    { show second; fail "the unreachable host's outcome is not shown"; }
grep -q '"fleet-local: ok, ' "$scratch/second.log" ||
    { show second; fail "the reachable host's outcome is not shown"; }
# The second play's files in a folder of their own, beside the first's, and
# its report over them only: fleet-local's and fleet-given's run, not the
# first play's too.
set -- "$scratch/ctl/results"/*/
[ $# = 2 ] || { show second; fail "the second play did not make a folder of its own in results/ ($*)"; }
second_play=$1
[ "$second_play" != "$first_play" ] || second_play=$2
# Without contest_db, the controller keeps a database of its own beside the
# results, with this play's files.
"$contest" history --db "$scratch/ctl/results/history.sqlite" --measure wall_s >"$scratch/ctl-series.log" 2>&1 ||
    { cat "$scratch/ctl-series.log" >&2; show second; fail "no results database on the controller"; }
grep -q '/no_load/wall_s ' "$scratch/ctl-series.log" ||
    { cat "$scratch/ctl-series.log" >&2; fail "the second play's runs are not in the controller's database"; }
set -- "$first_play/$kernel"/*.json
[ $# = 1 ] || fail "the first play's folder holds $# files, not its one"
set -- "$second_play/$kernel"/fleet-local-*.json
[ $# = 1 ] && [ -f "$1" ] || fail "the second play's folder holds $# files of fleet-local's, not its one run's"
grep -q '"fleet-given: ok, ' "$scratch/second.log" || { show second; fail "the host given a binary did not finish"; }
set -- "$second_play/$kernel"/fleet-given-*.json
[ -f "$1" ] || { show second; fail "the result of the host given a binary did not come back"; }
report_runs "$scratch/ctl/report.txt" "$kernel" no_load | grep -qx 2 ||
    { cat "$scratch/ctl/report.txt" >&2; fail "the second report does not hold its own 2 runs only"; }
# 2b. contest track on every host into the lab's database: the same branch of
# a tree on two hosts, one tracking it now (its status and mails fetched), one
# given the unit's settings for its timer (not started: this machine is no
# lab host). The tree's two tags do not build (no kernel Makefile): each point
# is recorded failed with why, as a lab's track would say it.
tree=$scratch/track-tree
git init -q -b master "$tree"
for n in 1 2; do
    echo "$n" >"$tree/README"
    git -C "$tree" add README
    git -C "$tree" -c user.name=t -c user.email=t@t commit -qm "commit $n"
    git -C "$tree" tag "v$n"
done
cat >"$scratch/track.ini" <<INI
[fleet]
fleet-local ansible_connection=local ansible_python_interpreter=/usr/bin/python3 contest_remote_dir=$host_dir
fleet-timer ansible_connection=local ansible_python_interpreter=/usr/bin/python3 contest_binary=$host_dir/bin/contest contest_remote_dir=$scratch/timer contest_track_mode=timer contest_track_conf_dir=$scratch/track-conf contest_track_enable_timer=false
INI
mkdir -p "$scratch/track-conf"
run track "$scratch/track.ini" "$scratch/ctl-track" -e contest_run=false -e contest_track=true \
    -e "contest_track_tree=$tree contest_track_from=v1" \
    -e "{\"contest_track_args\": \"-w command --workload-cmd true no_load cpu_load\"}"
[ "$status" = 0 ] || { show track; fail "the track play failed"; }
status_file=$scratch/ctl-track/results/track/fleet-local-main.status
[ -f "$status_file" ] || { show track; fail "no track status fetched from fleet-local"; }
grep -q '^points: 2, 0 stored, 2 failed, 0 to do' "$status_file" ||
    { cat "$status_file" >&2; fail "the host's track did not take both points"; }
grep -q "^  1\. v1 .*: failed: .*make tinyconfig" "$status_file" ||
    { cat "$status_file" >&2; fail "the point that does not build is not said so"; }
[ -f "$host_dir/track/main/track.json" ] || fail "no track state on the host"
grep -q '"fleet-local: track main: points: 2, 0 stored, 2 failed' "$scratch/track.log" &&
    grep -q '"fleet-timer: track main: its unit.s settings in .*/track-conf/main.conf"' "$scratch/track.log" ||
    { show track; fail "the hosts' outcomes do not say their tracks"; }
conf=$scratch/track-conf/main.conf
[ -f "$conf" ] || { show track; fail "no settings written for fleet-timer's unit"; }
grep -qx "TREE=$tree" "$conf" && grep -qx "FROM=v1" "$conf" && grep -qx "EVERY=tag" "$conf" &&
    grep -qx "RUN_WORDS=--workdir $scratch/timer/work -w command --workload-cmd true no_load cpu_load" "$conf" &&
    grep -qx "TRACK_OPTIONS=--db $pg_uri" "$conf" ||
    { cat "$conf" >&2; fail "the unit's settings are not the track's"; }
[ ! -e "$scratch/timer/track/main/track.json" ] || fail "the timer host ran the track now"

# 3. Boot rounds on every host (contest_boot) in sudo mode: the login user
# is not root (a uid of no account, the play run under setpriv) and becomes
# root through a stand-in for sudo (BECOME_ROOT, made set-uid root here,
# runnable by that login's group only). Four hosts, each a machine made of
# stand-ins: grub-reboot, reboot and systemctl on its PATH record what they
# are asked, its kernel is made up (CONTEST_TEST_RUNNING_KERNEL), its
# /var/tmp a sticky folder anybody can write, where the host's folder
# (contest_remote_dir) is. The machine itself (hypervise) sees a reboot
# asked, waits for the contest that asked to end (as a machine going down
# would end it), boots into the entry grub-reboot named (or the default one)
# and does what systemd would: runs the ExecStart of the unit contest
# installed, as root, with the host's name (a UTS namespace of its own, so
# each file's fingerprint names its host). fleet-a and fleet-b take their 2
# labels x 2 rounds; fleet-hangs is never booted after its first reboot and
# is given up on after its bound, named with its last status; fleet-users's
# folder was made by the login user before the play, and root must run
# nothing from it. Then what root ran and read is checked root's alone, and
# a second play over fleet-a (1 round) is reported on its own.
[ "$(id -u)" = 0 ] || { echo "skipped: the boot plays need root (machines of stand-ins, a set-uid stand-in for sudo)"; exit 77; }
login=60999
while getent passwd "$login" >/dev/null || getent group "$login" >/dev/null; do login=$((login - 1)); done
boot_scratch=$(mktemp -d /var/tmp/contest-fleet-boot.XXXXXX)
trap 'rm -rf "$scratch" "$boot_scratch"' EXIT INT TERM
chmod 0711 "$boot_scratch"
# The controller's side, the login user's: the role and the package, the
# report's contest, Ansible's own folders, the fetched results.
ctl=$boot_scratch/ctl
mkdir -p "$ctl/home" "$ctl/tmp" "$boot_scratch/async"
chmod 0700 "$boot_scratch/async"
cp -R "$src/deploy/ansible" "$ctl/ansible"
cp "$deb" "$ctl/contest.deb"
cp "$contest" "$ctl/contest"
: >"$ctl/ansible.cfg"
chown -R "$login:$login" "$ctl"
chmod 0700 "$ctl"
mkdir -m 0750 "$boot_scratch/sudo"
chgrp "$login" "$boot_scratch/sudo"
install -o root -g "$login" -m 4750 "$become_root" "$boot_scratch/sudo/sudo"
# as_login CMD...: CMD as the login user, in its own environment. Its PATH is
# the test's, each folder of it the login user cannot read replaced by a
# copy of its entries.
login_path=
for dir in $(echo "$PATH" | tr ':' ' '); do
    if setpriv --reuid="$login" --regid="$login" --clear-groups test -r "$dir" -a -x "$dir"; then
        login_path=$login_path:$dir
    else
        copy=$ctl/path-$(printf '%s' "$dir" | cksum | cut -d' ' -f1)
        mkdir -p "$copy" && cp -P "$dir"/* "$copy"/ 2>/dev/null || true
        chown -R "$login:$login" "$copy"
        login_path=$login_path:$copy
    fi
done
as_login() {
    setpriv --reuid="$login" --regid="$login" --clear-groups env -i HOME="$ctl/home" USER=fleet LOGNAME=fleet \
        PATH="${login_path#:}" ANSIBLE_LOCAL_TEMP="$ctl/tmp/local" ANSIBLE_REMOTE_TEMP="$ctl/tmp/remote" \
        ANSIBLE_ASYNC_DIR="$boot_scratch/async" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 \
        ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_RETRY_FILES_ENABLED=False ANSIBLE_CONFIG="$ctl/ansible.cfg" \
        ANSIBLE_PIPELINING=True "$@"
}
[ "$(as_login "$boot_scratch/sudo/sudo" -n -u root /usr/bin/id -u 2>&1)" = 0 ] ||
    fail "the set-uid stand-in for sudo does not give root here (a nosuid mount?)"
[ "$(as_login /usr/bin/id -u)" = "$login" ] || fail "the login user is not uid $login"
# machine NAME BOUND: the host's folder, root, tools and made-up kernel, and
# its line of the (YAML) inventory.
machine() {
    m=$boot_scratch/$1
    mkdir -p "$m/root/boot/grub" "$m/bin" "$m/proc" "$m/var-tmp"
    chmod 1777 "$m/var-tmp"
    printf '%s\n' "menuentry 'Debian, with Linux 6.1-rt' --class debian {" \
        "	linux /boot/vmlinuz-6.1-rt ro" "}" "menuentry 'Debian, with Linux 6.1' --class debian {" \
        "	linux /boot/vmlinuz-6.1 ro" "}" >"$m/root/boot/grub/grub.cfg"
    # The kernel it runs: made up, a new boot_id each boot.
    cat >"$m/bin/boot-into" <<SH
#!/bin/sh
echo "\$1" > $m/proc/osrelease
echo "BOOT_IMAGE=/boot/vmlinuz-\$1 ro" > $m/proc/cmdline
cat /proc/sys/kernel/random/uuid > $m/proc/boot_id
echo "12.5 10.0" > $m/proc/uptime
SH
    # A reboot is asked: the machine (hypervise, below) does it.
    printf '#!/bin/sh\necho "reboot $*" >> %s/asked\n' "$m" >"$m/bin/reboot"
    cat >"$m/bin/grub-reboot" <<SH
#!/bin/sh
echo "grub-reboot \$*" >> $m/asked
case "\$1" in *6.1-rt*) echo 6.1-rt > $m/next ;; *) echo 6.1 > $m/next ;; esac
SH
    printf '#!/bin/sh\necho "grub-editenv $*" >> %s/asked\n' "$m" >"$m/bin/grub-editenv"
    printf '#!/bin/sh\necho "systemctl $*" >> %s/asked\ncase "$*" in *reboot*) exec %s/bin/reboot ;; esac\n' \
        "$m" "$m" >"$m/bin/systemctl"
    chmod 755 "$m/bin"/*
    "$m/bin/boot-into" 6.1-default
    cat <<YAML
    $1:
      ansible_connection: local
      ansible_python_interpreter: /usr/bin/python3
      ansible_become_exe: $boot_scratch/sudo/sudo
      contest_remote_dir: $m/var-tmp/contest-fleet
      contest_boot_root: $m/root
      contest_environment: {PATH: "$m/bin:$PATH", CONTEST_TEST_RUNNING_KERNEL: "$m/proc"}
      contest_boot_timeout_s: $2
YAML
}
{
    printf 'fleet:\n  hosts:\n'
    machine fleet-a 90
    machine fleet-b 90
    machine fleet-hangs 10
    machine fleet-users 90
} >"$ctl/boot.yml"
as_login mkdir "$boot_scratch/fleet-users/var-tmp/contest-fleet"
# hypervise M: machine M's reboots, until M/stop is made.
hypervise() {
    m=$1 seen=0
    unit=$m/root/etc/systemd/system/contest-boot.service
    while [ ! -e "$m/stop" ]; do
        asked=$(grep -c '^reboot' "$m/asked" 2>/dev/null) || asked=0
        if [ "$asked" -gt "$seen" ] && ! pgrep -f -- "$m/var-tmp/contest-fleet/boot-results" >/dev/null; then
            seen=$asked
            next=6.1-default
            if [ -s "$m/next" ]; then next=$(cat "$m/next"); : >"$m/next"; fi
            "$m/bin/boot-into" "$next"
            if [ -f "$unit" ]; then
                eval "set -- $(sed -n 's/^ExecStart=//p' "$unit")"
                (cd / && PATH="$m/bin:$PATH" CONTEST_TEST_RUNNING_KERNEL="$m/proc" \
                    unshare --uts sh -c 'hostname "$0" && exec "$@"' "${m##*/}" "$@") >>"$m/steps.log" 2>&1 </dev/null
            fi
        fi
        sleep 0.3
    done
}
hypervise "$boot_scratch/fleet-a" &
machines=$!
hypervise "$boot_scratch/fleet-b" &
machines="$machines $!"
stop_machines() {
    for h in fleet-a fleet-b fleet-hangs fleet-users; do : >"$boot_scratch/$h/stop"; done
    wait $machines 2>/dev/null || true
}
trap 'stop_machines; rm -rf "$scratch" "$boot_scratch"' EXIT INT TERM
# Its own variables (the steps' above name one host folder for all): each
# host's folder and environment are its inventory's.
cat >"$ctl/boot-vars.json" <<JSON
{
  "contest_package": "$ctl/contest.deb",
  "contest_package_install": "unpack",
  "contest_controller_binary": "$ctl/contest",
  "contest_extra_packages": [],
  "contest_boot": true,
  "contest_boot_poll_s": 2,
  "contest_args": "--boot \\"rt=Debian, with Linux 6.1-rt\\" --boot \\"std=Debian, with Linux 6.1\\" --boot-method grub --boot-root {{ contest_boot_root }} -n {{ fleet_rounds | default(2) }} -w command --workload-cmd true --warmup 0 --timeline-hz 0 no_load",
  "contest_results_dir": "$ctl/ctl-boot/results",
  "contest_summaries_dir": "$ctl/ctl-boot/summaries",
  "contest_report_file": "$ctl/ctl-boot/report.txt",
  "contest_controller_cache_dir": "$ctl/cache"
}
JSON
chown "$login:$login" "$ctl/boot.yml" "$ctl/boot-vars.json"
# boot_play NAME [ansible-playbook args]: site.yml as the login user.
boot_play() {
    name=$1
    shift
    start=$(date +%s)
    status=0
    as_login ansible-playbook -i "$ctl/boot.yml" "$ctl/ansible/site.yml" -e "@$ctl/boot-vars.json" "$@" \
        >"$scratch/$name.log" 2>&1 || status=$?
    echo "test-ansible: $name: ansible-playbook exited $status after $(($(date +%s) - start)) s"
}
boot_start=$(date +%s)
boot_play boot
[ "$status" != 0 ] || { show boot; fail "the boot play passed though a host never came back"; }
grep -q 'contest did not finish on: fleet-hangs, fleet-users"' "$scratch/boot.log" ||
    { show boot; fail "the hosts that hung and that had the login user's folder are not named"; }
grep -q '"fleet-hangs: failed at .*did not end within 10 s; its last status: boot run [^ ]*: running' "$scratch/boot.log" ||
    { show boot; fail "the host that hung is not reported with its last status"; }
users_dir=$boot_scratch/fleet-users/var-tmp/contest-fleet
grep -q "\"fleet-users: failed at 'Check that only root can change them': root would run contest from what others can change: $users_dir is owned by uid $login" "$scratch/boot.log" ||
    { show boot; fail "fleet-users's folder, the login user's, is not named as what root must not run from"; }
[ -z "$(ls -A "$users_dir")" ] || { ls -lR "$users_dir" >&2; fail "the role put something in the login user's folder on fleet-users"; }
set -- "$ctl/ctl-boot/results"/*/
[ $# = 1 ] && [ -d "$1" ] || { show boot; fail "the boot play did not make one folder of its own in results/ ($*)"; }
boot_play1=$1
for h in fleet-a fleet-b; do
    grep -q "\"$h: boot run [^ ]*: done" "$scratch/boot.log" || { show boot; cat "$boot_scratch/$h/steps.log" >&2; fail "$h's boot run did not end done"; }
    for label in rt std; do
        set -- "$boot_play1/$label/$h"-*.json
        [ $# = 1 ] && [ -f "$1" ] || { show boot; fail "$h's $label results were not fetched (one file)"; }
        grep -q '"status": "ok"' "$1" || fail "$h's $label file has no run that passed"
        [ "$(stat -c %u "$1")" = "$login" ] || fail "$h's $label file was not fetched by the login user"
    done
    # Each turn a reboot, and one back: 2 labels x 2 rounds + 1.
    [ "$(grep -c '^reboot' "$boot_scratch/$h/asked")" = 5 ] ||
        { cat "$boot_scratch/$h/asked" >&2; fail "$h was not rebooted once a turn and once back"; }
done
# What root ran and read on the hosts is root's alone: the host's folder and
# everything in it (the package and what it unpacked, bin/contest, the
# workdir, the results and contest's copy run at each boot), none of it
# writable by others; the binary started is the package's, unpacked there.
for h in fleet-a fleet-b fleet-hangs; do
    d=$boot_scratch/$h/var-tmp/contest-fleet
    open=$(find "$d" \( ! -uid 0 -o \( -perm /022 ! -type l \) \) -print)
    [ -z "$open" ] || { ls -ld $open >&2; fail "on $h, root ran or read what is not root's alone"; }
    case $(realpath -e "$d/bin/contest") in
        "$d"/pkg/root-*/usr/bin/contest) ;;
        *) fail "on $h, bin/contest is not the package's binary unpacked in the host's folder" ;;
    esac
done
"$contest" compare --over-hosts --results "$boot_play1" std rt >"$scratch/over.txt" 2>&1 ||
    { cat "$scratch/over.txt" >&2; fail "contest compare --over-hosts failed on the fetched results"; }
grep -q '^rt against std over 2 hosts' "$scratch/over.txt" || { cat "$scratch/over.txt" >&2; fail "no comparison over the two hosts"; }
grep -q '^  over 2 hosts: [-+]' "$scratch/over.txt" || { cat "$scratch/over.txt" >&2; fail "no line over the hosts"; }
sed 's/^/  | /' "$scratch/over.txt"
report_runs "$ctl/ctl-boot/report.txt" rt no_load | grep -qx 4 ||
    { cat "$ctl/ctl-boot/report.txt" >&2; fail "the boot play's report does not hold rt's 4 runs"; }

# Again over fleet-a, 1 round: its files in a folder of its own on the host
# and the controller, and its report over them only.
boot_play boot-again --limit fleet-a,localhost -e fleet_rounds=1
[ "$status" = 0 ] || { show boot-again; fail "the second boot play failed"; }
set -- "$ctl/ctl-boot/results"/*/
[ $# = 2 ] || { show boot-again; fail "the second boot play did not make a folder of its own in results/ ($*)"; }
boot_play2=$1
[ "$boot_play2" != "$boot_play1" ] || boot_play2=$2
for label in rt std; do
    set -- "$boot_play2/$label"/*.json
    [ $# = 1 ] || { show boot-again; fail "the second boot play fetched $# $label files, not its own 1"; }
    set -- "$boot_play1/$label"/*.json
    [ $# = 2 ] || fail "the first boot play's folder holds $# $label files, not its 2"
done
report_runs "$ctl/ctl-boot/report.txt" rt no_load | grep -qx 1 ||
    { cat "$ctl/ctl-boot/report.txt" >&2; fail "the second boot play's report does not hold its own run of rt only"; }
echo "test-ansible: boot rounds in sudo mode, 4 hosts and 2 plays: $(($(date +%s) - boot_start)) s"
# Nothing left running of the hosts' steps.
stop_machines
if pgrep -f -- "--boot-continue $boot_scratch" >/dev/null; then fail "a host's step outlived the play"; fi

echo "test-ansible: all checks passed"
