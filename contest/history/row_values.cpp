#include "contest/history/row_values.h"

#include <stdexcept>
#include <string>

namespace contest::history {

namespace {

template <typename T>
T column_number(const soci::row& row, std::size_t i) {
    switch (row.get_properties(i).get_data_type()) {
        case soci::dt_integer:
            return static_cast<T>(row.get<int>(i));
        case soci::dt_long_long:
            return static_cast<T>(row.get<long long>(i));
        case soci::dt_unsigned_long_long:
            return static_cast<T>(row.get<unsigned long long>(i));
        case soci::dt_double:
            return static_cast<T>(row.get<double>(i));
        case soci::dt_string:
            return static_cast<T>(std::stod(row.get<std::string>(i)));
        default:
            throw std::runtime_error("column " + row.get_properties(i).get_name() +
                                     " is not a number");
    }
}

}  // namespace

long long integer_at(const soci::row& row, std::size_t i) {
    return column_number<long long>(row, i);
}

double real_at(const soci::row& row, std::size_t i) {
    return column_number<double>(row, i);
}

}  // namespace contest::history
