// The machine's speed over a window: the CPU time of one fixed unit of work,
// sampled by a thread of the observer's own. The bounds are wide: this VM's
// timings jump by milliseconds.
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>
#include <vector>

#include "contest/observe/machine_speed.h"

using namespace contest;

namespace {

// Threads of this process now.
std::size_t thread_count() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task"))
        ++n;
    return n;
}

// Two threads that keep two CPUs busy while they live.
class Spinners {
  public:
    Spinners() {
        for (int i = 0; i < 2; ++i)
            threads_.emplace_back([this] {
                volatile unsigned long spin = 0;
                while (!stop_.load(std::memory_order_relaxed)) spin = spin + 1;
            });
    }
    ~Spinners() {
        stop_ = true;
        for (auto& t : threads_) t.join();
    }

  private:
    std::atomic<bool> stop_{false};
    std::vector<std::thread> threads_;
};

struct Window {
    RunRecord rec;
    std::vector<SpeedSample> samples;
};

// The observer over the window of a child that sleeps `seconds`.
Window speed_over_sleep(const char* seconds) {
    MachineSpeedObserver speed;
    Window w;
    observe_window({"sleep", seconds}, {}, {}, {&speed}, w.rec);
    w.samples = speed.samples();
    CHECK(speed.failed_samples() == 0);
    return w;
}

double mean_wall_us(const std::vector<SpeedSample>& samples) {
    double sum = 0;
    for (const auto& s : samples) sum += s.wall_us;
    return samples.empty() ? 0 : sum / static_cast<double>(samples.size());
}

}  // namespace

TEST_CASE("one unit of work takes a positive CPU time", "[machine_speed]") {
    auto s = time_speed_unit();
    REQUIRE(s);
    CHECK(s->cpu_us > 0);
    CHECK(s->cpu_us < 100'000);
    CHECK(mean_unit_cpu_us({}) == std::nullopt);
    CHECK(mean_unit_cpu_us({{10, 20}, {30, 30}}) == Approx(20));
}

TEST_CASE("a run's unit CPU time is the mean over its window's samples", "[machine_speed]") {
    Window w = speed_over_sleep("0.3");
    REQUIRE(w.rec.unit_cpu_us);
    CHECK(*w.rec.unit_cpu_us > 1);
    CHECK(*w.rec.unit_cpu_us < 100'000);
    // One at once, one a period later (and, on a slow start, not more).
    CHECK(w.samples.size() >= 1);
    CHECK(w.samples.size() <= 3);
    CHECK(*w.rec.unit_cpu_us == Approx(*mean_unit_cpu_us(w.samples)));
}

TEST_CASE("a window shorter than the period still has its sample", "[machine_speed]") {
    Window w = speed_over_sleep("0.05");
    CHECK(w.samples.size() >= 1);
    CHECK(w.rec.unit_cpu_us);
}

TEST_CASE("the unit's CPU time does not count the CPU that other work takes",
          "[machine_speed][slow]") {
    Window idle = speed_over_sleep("2");
    Window loaded;
    {
        Spinners spinners;  // every CPU of a 2-CPU machine busy, the sampler among them
        loaded = speed_over_sleep("2");
    }
    REQUIRE(idle.rec.unit_cpu_us);
    REQUIRE(loaded.rec.unit_cpu_us);
    INFO("idle " << *idle.rec.unit_cpu_us << " us CPU, " << mean_wall_us(idle.samples)
                 << " us wall; loaded " << *loaded.rec.unit_cpu_us << " us CPU, "
                 << mean_wall_us(loaded.samples) << " us wall");
    // Time the sampler waits for a CPU is not in its figure; wall time grows
    // with the wait, but a woken sampler is often run at once, so how much
    // is not asserted.
    CHECK(*loaded.rec.unit_cpu_us < 2 * *idle.rec.unit_cpu_us);
    CHECK(*loaded.rec.unit_cpu_us > 0.5 * *idle.rec.unit_cpu_us);
    // CPU time, never more than the wall time it was taken in.
    CHECK(*loaded.rec.unit_cpu_us <= mean_wall_us(loaded.samples) * 1.01 + 1);
}

TEST_CASE("the sampler's thread ends with the window, and on an exception", "[machine_speed]") {
    const std::size_t before = thread_count();
    {
        MachineSpeedObserver speed;
        speed.begin();
        CHECK(thread_count() == before + 1);
        speed.end();
        CHECK(thread_count() == before);
        RunRecord rec;
        speed.record(rec);
        CHECK(rec.unit_cpu_us);
    }
    CHECK(thread_count() == before);
    // The spawn fails after every observer has begun: the observer's
    // destructor, on the way out, joins the thread.
    CHECK_THROWS([] {
        MachineSpeedObserver speed;
        RunRecord rec;
        observe_window({"/nonexistent/contest-test-program"}, {}, {}, {&speed}, rec);
    }());
    CHECK(thread_count() == before);
    // Begun and never ended: the destructor stops it.
    {
        MachineSpeedObserver speed;
        speed.begin();
    }
    CHECK(thread_count() == before);
}
