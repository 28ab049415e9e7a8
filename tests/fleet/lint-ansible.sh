#!/bin/sh
# Usage: tests/fleet/lint-ansible.sh SOURCE_DIR
#
# ansible-lint over deploy/ansible, so a task it fails cannot land (the
# playbook's own test, fleet_ansible, is a long one that `make test` leaves
# out; this takes seconds). Offline: no collection or schema is fetched, and
# what ansible-lint keeps (its cache, ansible's tmp) goes to a scratch HOME.
# Fails, never skips, without ansible-lint: `make deps-test` installs it.
set -eu
src=$(cd "$1" && pwd)
command -v ansible-lint >/dev/null 2>&1 ||
    { echo "lint-ansible: ansible-lint not installed (make deps-test installs it)" >&2; exit 1; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/contest-ansible-lint.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$src"
HOME=$scratch XDG_CACHE_HOME=$scratch/cache ANSIBLE_LOCAL_TEMP=$scratch/ansible-tmp \
    NO_COLOR=1 ansible-lint --offline --nocolor deploy/ansible
