#include "contest/observe/sysinfo.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "contest/observe/kernel_facts.h"
#include "contest/sys/machine.h"
#include "contest/sys/proc_files.h"
#include "contest/sys/sha256.h"
#include "contest/sys/spawn.h"

namespace contest {
namespace {

std::string first_line_of_file(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// What tells this machine from another of the same name (a fleet's hosts
// cloned from one image): a digest of its machine id, never the id itself,
// which systemd asks be kept private. Null where there is none.
nlohmann::json machine_key() {
    for (const char* path : {"/etc/machine-id", "/var/lib/dbus/machine-id"}) {
        const std::string id = first_line_of_file(path);
        if (!id.empty()) return sha256_hex("contest machine key\n" + id).substr(0, 16);
    }
    return nullptr;
}

}  // namespace

nlohmann::json system_fingerprint(const std::string& workdir) {
    nlohmann::json j;
    struct utsname u {};
    ::uname(&u);
    j["kernel_release"] = u.release;
    j["kernel_version"] = u.version;
    j["machine"] = u.machine;
    j["hostname"] = u.nodename;
    j["machine_key"] = machine_key();

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

    // Autogroup gives every session an equal CPU share whatever the nice
    // values: it changes how anything outside contest competes with it.
    std::string autogroup = first_line_of_file("/proc/sys/kernel/sched_autogroup_enabled");
    j["sched_autogroup"] =
        autogroup.empty() ? nlohmann::json(nullptr) : nlohmann::json(autogroup == "1");

    MemInfo m = read_meminfo();
    j["mem_total_bytes"] = m.total;
    j["mem_available_bytes"] = m.available;
    j["swap_total_bytes"] = m.swap_total;
    j["swap_free_bytes"] = m.swap_free;
    j["compiler"] = first_line(command_output({"cc", "--version"}));
    j["make"] = first_line(command_output({"make", "--version"}));
    j["kernel"] = kernel_facts(workdir);
    return j;
}

}  // namespace contest
