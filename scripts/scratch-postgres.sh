# shellcheck shell=sh
# shellcheck disable=SC2154,SC2034  # pg_dir is the caller's; pg_uri is for the caller
# A PostgreSQL server of a script's own, as tests/postgres_server.h starts
# one for the C++ tests: Debian's newest server (package postgresql), a
# cluster made by initdb in a scratch folder as the unprivileged user nobody
# (PostgreSQL refuses root), a Unix socket in that folder and no TCP port,
# trust for the user `contest` and reject for any other. Sourced (POSIX sh)
# by bench/history_scale.sh and tests/fleet/test-ansible.sh:
#
#   . scripts/scratch-postgres.sh
#   pg_dir=SCRATCH/pg; scratch_postgres_start    # pg_uri set: postgresql:///postgres?host=...
#   scratch_postgres_stop                        # from the caller's EXIT trap
#
# The folder above pg_dir must be one nobody can enter. Stopped on every
# path: by scratch_postgres_stop (the caller's trap), and, should the caller
# be killed outright, by a watchdog in a session of its own that sees the
# caller gone and stops the server's process group.

pg_pid=
pg_watchdog=
pg_uri=

# The newest server's binaries, or "" when none is installed.
scratch_postgres_bin() {
    for d in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V); do pg_bin=$d; done
    [ -x "${pg_bin:-}/initdb" ] && [ -x "$pg_bin/postgres" ] || pg_bin=
}

scratch_postgres_fail() {
    echo "scratch-postgres: $*" >&2
    exit 1
}

scratch_postgres_as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- "$@"; }

scratch_postgres_start() {
    scratch_postgres_bin
    [ -n "$pg_bin" ] || scratch_postgres_fail "no PostgreSQL server: install the Debian package postgresql"
    id nobody >/dev/null 2>&1 || scratch_postgres_fail "no user nobody to run PostgreSQL as"
    mkdir -p "$pg_dir/sock"
    chown -R nobody:"$(id -g nobody)" "$pg_dir"
    scratch_postgres_as_nobody test -w "$pg_dir/sock" ||
        scratch_postgres_fail "nobody cannot reach $pg_dir: a folder every user can enter is needed above it"
    scratch_postgres_as_nobody "$pg_bin/initdb" -D "$pg_dir/data" -U contest --auth=trust -E UTF8 \
        --no-sync >"$pg_dir/initdb.log" 2>&1 || { cat "$pg_dir/initdb.log" >&2; scratch_postgres_fail "initdb failed"; }
    printf 'local all contest trust\nlocal all all reject\n' >"$pg_dir/data/pg_hba.conf"
    # Its own session and process group: one kill of the group stops it and
    # its backends, and ^C at a terminal reaches it only through the trap.
    setsid setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- \
        "$pg_bin/postgres" -D "$pg_dir/data" -k "$pg_dir/sock" -c listen_addresses= \
        </dev/null >"$pg_dir/server.log" 2>&1 &
    pg_pid=$!
    # shellcheck disable=SC2016  # the watchdog's own words, with its own $1 and $2
    setsid sh -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done
        pm=$(head -n 1 "$2/data/postmaster.pid" 2>/dev/null) || exit 0
        kill -QUIT "$pm" 2>/dev/null; sleep 5; kill -KILL -- "-$pm" 2>/dev/null' \
        watchdog $$ "$pg_dir" </dev/null >/dev/null 2>&1 &
    pg_watchdog=$!
    # The pid file's eighth line starts with "ready" once it takes connections.
    tries=0
    while [ "$tries" -lt 1200 ]; do
        kill -0 "$pg_pid" 2>/dev/null || { cat "$pg_dir/server.log" >&2; scratch_postgres_fail "postgres ended at its start"; }
        case $(sed -n 8p "$pg_dir/data/postmaster.pid" 2>/dev/null) in ready*)
            pg_uri="postgresql:///postgres?host=$pg_dir/sock&user=contest"
            return 0
            ;;
        esac
        sleep 0.1
        tries=$((tries + 1))
    done
    scratch_postgres_fail "postgres not ready after 120 s; see $pg_dir/server.log"
}

scratch_postgres_stop() {
    if [ -n "$pg_watchdog" ]; then
        kill -- "-$pg_watchdog" 2>/dev/null || true  # its group: its sleep too
        wait "$pg_watchdog" 2>/dev/null || true
        pg_watchdog=
    fi
    [ -n "$pg_pid" ] || return 0
    pm=$(head -n 1 "$pg_dir/data/postmaster.pid" 2>/dev/null || true)
    pm=${pm:-$pg_pid}
    kill -INT "$pm" 2>/dev/null || true  # a fast shutdown
    tries=0
    while kill -0 "$pm" 2>/dev/null && [ "$tries" -lt 300 ]; do
        sleep 0.1
        tries=$((tries + 1))
    done
    kill -KILL -- "-$pm" 2>/dev/null || true  # its group, anything left of it
    wait "$pg_pid" 2>/dev/null || true
    pg_pid=
}
