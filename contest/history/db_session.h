#pragma once
// The database's SOCI session, for history/'s own files: every statement
// against the history's tables is made in history/ (docs/history.md), and
// the robot and the commands call history/'s functions instead. No file of
// contest/ outside history/ includes this; the tests do, to plant what a
// broken or newer database holds (a trigger that refuses a row, a newer
// schema) and to count the rows their checks are about.
#include <soci/soci.h>

#include "contest/history/history_db.h"

namespace contest::history {

soci::session& session_of(HistoryDb& db);

}  // namespace contest::history
