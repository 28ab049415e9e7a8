#pragma once
// The bisection is being taken by another contest (a part of it under way
// across reboots, another command on its folder): no failure of its own.
#include "contest/sys/errors.h"

namespace contest::bisect {

struct BisectionBusy : UsageError {
    using UsageError::UsageError;
};

}  // namespace contest::bisect
