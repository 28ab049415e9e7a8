#include "contest/sys/sysinfo.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "contest/sys/machine.h"
#include "contest/sys/spawn.h"

namespace contest {
namespace {

std::string first_line_of_file(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// The running kernel's build config: /proc/config.gz (CONFIG_IKCONFIG_PROC)
// or the distribution's /boot/config-<release>.
std::map<std::string, std::string> kernel_config(const std::string& release, std::string& source) {
    std::map<std::string, std::string> cfg;
    auto parse = [&](std::istream& in) {
        std::string line;
        while (std::getline(in, line)) {
            if (!line.starts_with("CONFIG_")) continue;
            auto eq = line.find('=');
            if (eq != std::string::npos) cfg[line.substr(0, eq)] = line.substr(eq + 1);
        }
    };
    std::string boot = "/boot/config-" + release;
    if (std::ifstream in(boot); in) {
        parse(in);
        source = boot;
    } else if (::access("/proc/config.gz", R_OK) == 0) {
        // Through a pipe, no shell: gzip's output is the config's text.
        std::istringstream in(command_output({"gzip", "-dc", "/proc/config.gz"}));
        parse(in);
        if (!cfg.empty()) source = "/proc/config.gz";
    }
    return cfg;
}

std::string preemption_model(const std::map<std::string, std::string>& cfg) {
    // Dynamic preemption (PREEMPT_DYNAMIC) reports the live mode here, e.g.
    // "none (voluntary) full": the parenthesised one is in force.
    std::string dynamic = first_line_of_file("/sys/kernel/debug/sched/preempt");
    if (auto open = dynamic.find('('); open != std::string::npos) {
        auto close = dynamic.find(')', open);
        if (close != std::string::npos)
            return dynamic.substr(open + 1, close - open - 1) + " (dynamic)";
    }
    auto on = [&](const char* k) {
        auto it = cfg.find(k);
        return it != cfg.end() && it->second == "y";
    };
    std::string model;
    if (on("CONFIG_PREEMPT_RT"))
        model = "rt";
    else if (on("CONFIG_PREEMPT"))
        model = "full";
    else if (on("CONFIG_PREEMPT_VOLUNTARY"))
        model = "voluntary";
    else if (on("CONFIG_PREEMPT_NONE"))
        model = "none";
    if (!model.empty() && on("CONFIG_PREEMPT_DYNAMIC")) {
        // Without debugfs, the boot command line is what can override the default.
        std::string cmdline = first_line_of_file("/proc/cmdline");
        auto at = cmdline.find("preempt=");
        if (at != std::string::npos) {
            auto end = cmdline.find(' ', at);
            return cmdline.substr(at + 8,
                                  end == std::string::npos ? std::string::npos : end - at - 8) +
                   " (dynamic, preempt= on the command line)";
        }
        return model + " (dynamic, build default)";
    }
    if (!model.empty()) return model;
    return "";
}

// The active I/O scheduler ("[mq-deadline] none" -> "mq-deadline") of the
// block device holding path, or null when it has none (virtual file systems).
nlohmann::json io_scheduler_of(const char* path) {
    struct stat st {};
    if (::stat(path, &st) != 0) return nullptr;
    std::string dev = "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
                      std::to_string(minor(st.st_dev));
    std::string line = first_line_of_file(dev + "/queue/scheduler");
    if (line.empty()) line = first_line_of_file(dev + "/../queue/scheduler");  // a partition
    auto open = line.find('['), close = line.find(']');
    if (open == std::string::npos || close == std::string::npos)
        return line.empty() ? nlohmann::json(nullptr) : nlohmann::json(line);
    return line.substr(open + 1, close - open - 1);
}

}  // namespace

MemInfo read_meminfo() {
    MemInfo m;
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib;
    std::string unit;
    while (in >> key >> kib) {
        std::getline(in, unit);
        std::uint64_t bytes = kib * 1024;
        if (key == "MemTotal:")
            m.total = bytes;
        else if (key == "MemAvailable:")
            m.available = bytes;
        else if (key == "SwapTotal:")
            m.swap_total = bytes;
        else if (key == "SwapFree:")
            m.swap_free = bytes;
    }
    return m;
}

nlohmann::json system_fingerprint() {
    nlohmann::json j;
    struct utsname u {};
    ::uname(&u);
    j["kernel_release"] = u.release;
    j["kernel_version"] = u.version;
    j["machine"] = u.machine;
    j["hostname"] = u.nodename;

    std::string source;
    auto cfg = kernel_config(u.release, source);
    j["kernel_config_source"] = source.empty() ? nlohmann::json(nullptr) : nlohmann::json(source);
    auto get = [&](const char* k) -> nlohmann::json {
        auto it = cfg.find(k);
        return it == cfg.end() ? nlohmann::json(nullptr) : nlohmann::json(it->second);
    };
    if (auto hz = cfg.find("CONFIG_HZ"); hz != cfg.end())
        j["config_hz"] = std::stoi(hz->second);
    else
        j["config_hz"] = nullptr;
    std::string preempt = preemption_model(cfg);
    j["preemption"] = preempt.empty() ? nlohmann::json(nullptr) : nlohmann::json(preempt);
    j["no_hz"] = get("CONFIG_NO_HZ_FULL").is_null()
                     ? (get("CONFIG_NO_HZ_IDLE").is_null() ? "periodic" : "idle")
                     : "full";
    j["cmdline"] = first_line_of_file("/proc/cmdline");

    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line, model;
    while (std::getline(cpuinfo, line)) {
        if (line.starts_with("model name")) {
            model = line.substr(line.find(':') + 2);
            break;
        }
    }
    j["cpu_model"] = model;
    j["cpus_online"] = online_cpus();
    j["cpus_configured"] = ::sysconf(_SC_NPROCESSORS_CONF);
    std::string governor =
        first_line_of_file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    j["cpufreq_governor"] = governor.empty() ? nlohmann::json(nullptr) : nlohmann::json(governor);
    j["clocksource"] =
        first_line_of_file("/sys/devices/system/clocksource/clocksource0/current_clocksource");

    // Autogroup gives every session an equal CPU share whatever the nice
    // values: it changes how anything outside contest competes with it.
    std::string autogroup = first_line_of_file("/proc/sys/kernel/sched_autogroup_enabled");
    j["sched_autogroup"] =
        autogroup.empty() ? nlohmann::json(nullptr) : nlohmann::json(autogroup == "1");
    j["io_scheduler_root"] = io_scheduler_of("/");

    MemInfo m = read_meminfo();
    j["mem_total_bytes"] = m.total;
    j["mem_available_bytes"] = m.available;
    j["swap_total_bytes"] = m.swap_total;
    j["swap_free_bytes"] = m.swap_free;
    j["compiler"] = first_line(command_output({"cc", "--version"}));
    j["make"] = first_line(command_output({"make", "--version"}));
    return j;
}

}  // namespace contest
