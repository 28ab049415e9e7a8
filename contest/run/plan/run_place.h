#pragma once
// Where a run's rounds run: the run's mode. Chosen once, from the option
// that names a place (the place table, places.h), and read everywhere
// else: no reader works it out from which of the config's lists is empty.
// Its name in a journal is its entry's (PlaceInfo::name); a place of a
// test takes a value beyond these (places.h, ExtraPlace).

namespace contest {

enum class RunPlace {
    host,    // this machine as it runs, its labels --vary's values or the -k label
    guests,  // --kernel: a QEMU guest of each label's kernel, every round
    boot,    // --boot: this machine booted into each label's kernel, every round
};

}  // namespace contest
