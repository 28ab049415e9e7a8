#pragma once
// A password written in a PostgreSQL URI on contest's command line
// (--db postgresql://lab:PASSWORD@host/db) is taken out of it at the start,
// before any command reads its words: contest records, prints, packs and
// hands on its words (config.command_line, the run journal, --boot's unit,
// reports, a track's and a bisection's `contest run`s), and none of them
// may carry the password. It goes instead where libpq looks for one when
// the URI gives none, PGPASSWORD in contest's environment, which the
// contests it starts inherit (a track's points) and no other child (a load,
// a workload, a probe, a guest's QEMU: sys/child_environment.h), and which
// only the same user (and root) can read, where /proc/PID/cmdline is every
// local user's: so the argument's own bytes are overwritten in place too.
// One warning says so, and where a password belongs (docs/history.md).
#include <iosfwd>

namespace contest {

// Every word of argv (past argv[0]) that is a PostgreSQL URI, or
// --OPTION=URI, holding a password: rewritten in place without it
// (history::without_password), the password put in PGPASSWORD, and one
// warning on warn. UsageError: a URI libpq cannot read, two URIs with
// different passwords. Returns whether a password was taken.
bool move_db_password_to_environment(int argc, char** argv, std::ostream& warn);

// Whether move_db_password_to_environment took one in this process: a
// --boot run's later steps, started by systemd after a reboot, would not
// have it.
bool db_password_moved_to_environment();

}  // namespace contest
