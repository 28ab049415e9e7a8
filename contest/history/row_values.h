#pragma once
// A column of a SOCI row as a number, whatever type the backend gave it:
// SQLite types an expression's column by its value (COUNT(*) may come as
// an int, a long long or a double), PostgreSQL by its declaration.
#include <soci/soci.h>

namespace contest::history {

long long integer_at(const soci::row& row, std::size_t i);
double real_at(const soci::row& row, std::size_t i);

}  // namespace contest::history
