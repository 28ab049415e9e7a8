#include "contest/observe/window_observer.h"

#include <sys/wait.h>

namespace contest {
namespace {

double seconds(const timeval& t) {
    return double(t.tv_sec) + double(t.tv_usec) / 1e6;
}

}  // namespace

void record_exit(const ExitInfo& ex, RunRecord& rec) {
    rec.wall_s = ex.wall_s;
    rec.user_s = seconds(ex.usage.ru_utime);
    rec.sys_s = seconds(ex.usage.ru_stime);
    rec.cpu_pct = ex.wall_s > 0 ? 100.0 * (rec.user_s + rec.sys_s) / ex.wall_s : 0;
    rec.max_rss_kib = ex.usage.ru_maxrss;
    rec.minor_faults = ex.usage.ru_minflt;
    rec.major_faults = ex.usage.ru_majflt;
    rec.voluntary_switches = ex.usage.ru_nvcsw;
    rec.involuntary_switches = ex.usage.ru_nivcsw;
    rec.exit_status = WIFEXITED(ex.status) ? WEXITSTATUS(ex.status) : 128 + WTERMSIG(ex.status);
}

ExitInfo observe_window(const std::vector<std::string>& argv, SpawnOptions so, WaitHooks hooks,
                        const std::vector<WindowObserver*>& observers, RunRecord& rec,
                        std::chrono::steady_clock::time_point* started) {
    for (WindowObserver* o : observers) o->prepare_spawn(so);
    for (WindowObserver* o : observers) o->begin();
    const auto spawned = std::chrono::steady_clock::now();
    if (started) *started = spawned;
    pid_t pid = spawn(argv, so);
    GroupGuard group(pid);
    for (WindowObserver* o : observers) o->spawned(pid);
    hooks.on_exit = [&observers] {
        for (auto o = observers.rbegin(); o != observers.rend(); ++o) (*o)->end();
    };
    ExitInfo ex = wait_child(pid, spawned, hooks);
    group.stop();
    record_exit(ex, rec);
    for (WindowObserver* o : observers) o->record(rec);
    return ex;
}

}  // namespace contest
