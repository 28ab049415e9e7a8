#pragma once
// Where a run's rounds run: the run's mode. Chosen once, from the option
// that names a place (the place table, places.h), and read everywhere
// else: no reader works it out from which of the config's lists is empty.
#include <array>

#include "contest/sys/enum_names.h"

namespace contest {

enum class RunPlace {
    host,    // this machine as it runs, its labels --vary's values or the -k label
    guests,  // --kernel: a QEMU guest of each label's kernel, every round
    boot,    // --boot: this machine booted into each label's kernel, every round
};
inline constexpr std::array<EnumName<RunPlace>, 3> kRunPlaceNames{{
    {RunPlace::host, "host"},
    {RunPlace::guests, "guests"},
    {RunPlace::boot, "boot"},
}};
template <>
struct JsonWords<RunPlace> {
    static constexpr const auto& names = kRunPlaceNames;
    static constexpr const char* what = "place";
};

}  // namespace contest
