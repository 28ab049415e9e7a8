#pragma once
// The environment contest's children get: contest's own, less what is
// contest's alone. Two kinds of variable are:
//  - an outer make's (MAKEFLAGS, MFLAGS, MAKELEVEL, MAKEOVERRIDES): contest
//    run under make (`make run`, ctest under `make test`) would otherwise
//    have the timed compile join the outer make's jobserver;
//  - a variable contest set for itself and the contests it starts: the
//    password a --db URI held, moved to PGPASSWORD (cli/db_password.h),
//    which libpq reads in contest and in a track's or a bisection's
//    `contest run`, and which no other child needs: a load, a workload, a
//    probe's program, a guest's QEMU, git, make or a mailer gets that
//    variable as contest's environment held it before (the user's own
//    value, or none), so that a program of the user's that reads it (a
//    pgbench workload) sees what the user gave it, and nothing of --db's.
// A child is contest itself when its program is the file contest runs
// from (/proc/self/exe): what a track starts its points with.
#include <filesystem>
#include <string>
#include <vector>

namespace contest {

// name=value set in contest's environment for contest and the contests it
// starts alone (see above); EnvironmentError when it cannot be.
void set_for_contests_only(const std::string& name, const std::string& value);

// contest's environment as a child gets it (see above), the overrides
// ("NAME=value") on top. to_contest: the child is contest itself.
std::vector<std::string> child_environment(const std::vector<std::string>& overrides,
                                           bool to_contest);

// Whether the program at path is the file contest runs from.
bool is_contest_program(const std::filesystem::path& program);

}  // namespace contest
