#pragma once
// The running load as a window observer: sampled the moment before the
// workload starts and the moment it exits, so the record's load figures
// cover exactly its window; its CPU is contest's own, not others'.
#include "contest/observe/window_observer.h"
#include "contest/run/rounds/load_runner.h"

namespace contest {

class LoadObserver : public WindowObserver {
  public:
    explicit LoadObserver(const LoadSession& load) : load_(load) {}  // a running load
    void begin() override { start_ = load_.sample(); }
    void end() override { end_ = load_.sample(); }
    void record(RunRecord& rec) override {
        LoadWindow w = load_.window(start_, end_);
        rec.load_units = w.units;
        rec.load_secondary = w.secondary;
        rec.load_cpu_pct = w.cpu_pct;
        cpu_pct_ = w.cpu_pct;
    }
    double own_cpu_pct() const override { return cpu_pct_; }

  private:
    const LoadSession& load_;
    LoadSample start_, end_;
    double cpu_pct_ = 0;
};

}  // namespace contest
