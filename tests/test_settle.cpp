// --settle's wait (contest/run/rounds/settle.h) on a machine made calm or busy by
// the samples it is given: a bound shorter than the half-second window
// still looks, can settle, and says the bound it gave up at as given.
#include <catch2/catch.hpp>

#include "contest/run/rounds/settle.h"

using namespace contest;

namespace {

struct CountedSamples {
    MachineSample each;
    int taken = 0;
    MachineSample operator()() {
        ++taken;
        return each;
    }
};

}  // namespace

TEST_CASE("a calm machine settles within a --settle shorter than the window", "[settle]") {
    for (const double bound : {0.3, 0.01}) {
        INFO("--settle " << bound);
        CountedSamples calm{{0, 0}};
        const Settled s = settle_machine(bound, std::ref(calm));
        CHECK(s.state == "settled");
        CHECK(calm.taken >= 1);
        // Wide: this is a bound, not a timing.
        CHECK(s.waited_s <= bound + 2);
    }
}

TEST_CASE("a busy machine is said not settled after the bound as given", "[settle]") {
    CountedSamples busy{{0, 100}};
    const Settled s = settle_machine(0.3, std::ref(busy));
    CHECK(s.state == "not settled after 0.3 s: 100.0 tasks runnable, 0 MiB dirty");
    CHECK(s.waited_s >= 0.3);
    CHECK(s.waited_s <= 2.3);
    CHECK(busy.taken >= 2);

    CountedSamples dirty{{500, 0}};
    CHECK(settle_machine(1.5, std::ref(dirty)).state ==
          "not settled after 1.5 s: 0.0 tasks runnable, 500 MiB dirty");
}

TEST_CASE("a --settle of 0 does not wait or look", "[settle]") {
    CountedSamples calm{{0, 0}};
    const Settled s = settle_machine(0, std::ref(calm));
    CHECK(s.state == "off");
    CHECK(s.waited_s == 0);
    CHECK(calm.taken == 0);
}
