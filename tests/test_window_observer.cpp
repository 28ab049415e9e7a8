// The run's observers around one workload (observe_window): the order of
// their calls, and what each sees of the record when it is called.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "contest/observe/window_observer.h"

using namespace contest;

namespace {

// Writes "name.call" into a shared log at each call; at record, also
// whether the workload's exit was already in the record.
class LoggingObserver : public WindowObserver {
  public:
    LoggingObserver(std::string name, std::vector<std::string>& log)
        : name_(std::move(name)), log_(log) {}
    void prepare_spawn(SpawnOptions&) override { log_.push_back(name_ + ".prepare_spawn"); }
    void begin() override { log_.push_back(name_ + ".begin"); }
    void end() override { log_.push_back(name_ + ".end"); }
    void record(RunRecord& rec) override {
        log_.push_back(name_ + ".record");
        exit_seen_ = rec.wall_s > 0 && rec.exit_status == 3;
    }
    bool exit_seen_ = false;

  private:
    std::string name_;
    std::vector<std::string>& log_;
};

}  // namespace

TEST_CASE("observers begin before the spawn, end at the exit last first, record after it",
          "[observe]") {
    std::vector<std::string> log;
    LoggingObserver a("a", log), b("b", log);
    RunRecord rec;
    SpawnOptions so;
    so.after_fork = [&log](pid_t) { log.push_back("spawned"); };
    std::chrono::steady_clock::time_point started{};
    ExitInfo ex = observe_window({"sh", "-c", "exit 3"}, so, {}, {&a, &b}, rec, &started);
    CHECK(log == std::vector<std::string>{"a.prepare_spawn", "b.prepare_spawn", "a.begin",
                                          "b.begin", "spawned", "b.end", "a.end", "a.record",
                                          "b.record"});
    CHECK(WEXITSTATUS(ex.status) == 3);
    CHECK(rec.exit_status == 3);
    CHECK(a.exit_seen_);
    CHECK(b.exit_seen_);
    CHECK(started != std::chrono::steady_clock::time_point{});
}
