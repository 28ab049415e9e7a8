#include "contest/observe/kernel_facts.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <zlib.h>

#include <filesystem>
#include <sstream>

#include "contest/observe/block_device.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text_file.h"

namespace contest {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json unreadable(const std::string& why) {
    return {{"reason", why}};
}

// A one-line sysfs/procfs fact, or why it can't be read.
json line_fact(const std::string& path) {
    std::string why;
    auto line = read_first_line(path, &why);
    if (!line) return unreadable(why);
    // "tsc kvm-clock ": sysfs lists end in a space.
    while (!line->empty() && line->back() == ' ') line->pop_back();
    return *line;
}

std::string gunzip_file(const std::string& path, std::string& why) {
    gzFile gz = ::gzopen(path.c_str(), "rb");
    if (!gz) {
        why = path + ": cannot open";
        return {};
    }
    std::string text;
    char buf[16384];
    int n;
    while ((n = ::gzread(gz, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
    int err = Z_OK;
    if (n < 0) why = path + ": " + ::gzerror(gz, &err);
    ::gzclose(gz);
    return n < 0 ? std::string() : text;
}

std::string release() {
    utsname u{};
    ::uname(&u);
    return u.release;
}

json preemption(const std::map<std::string, std::string>& cfg, const std::string& cmdline) {
    auto on = [&](const char* k) {
        auto it = cfg.find(k);
        return it != cfg.end() && it->second == "y";
    };
    const std::string model = preemption_model(cfg);
    json out{{"config", model}, {"dynamic", on("CONFIG_PREEMPT_DYNAMIC")}};
    if (!on("CONFIG_PREEMPT_DYNAMIC")) return out;
    // The live mode: "none (voluntary) full" -> voluntary. Only debugfs shows
    // it; without it, a preempt= boot parameter or else the build's default.
    std::string why;
    if (auto live = read_first_line("/sys/kernel/debug/sched/preempt", &why)) {
        const std::string text = *live;
        const auto open = text.find('('), close = text.find(')');
        out["current"] = open != std::string::npos && close > open
                             ? json(text.substr(open + 1, close - open - 1))
                             : json(text);
        return out;
    }
    std::istringstream words(cmdline);
    std::string word;
    while (words >> word)
        if (word.rfind("preempt=", 0) == 0) {
            out["current"] = {{"value", word.substr(8)},
                              {"reason", why + "; from the boot parameter " + word}};
            return out;
        }
    out["current"] = {{"value", nullptr},
                      {"reason", why +
                                     " (debugfs not mounted or not readable); no preempt= "
                                     "boot parameter, so most likely the build default: " +
                                     model}};
    return out;
}

json no_hz(const std::map<std::string, std::string>& cfg) {
    auto on = [&](const char* k) {
        auto it = cfg.find(k);
        return it != cfg.end() && it->second == "y";
    };
    std::string mode = on("CONFIG_NO_HZ_FULL")    ? "full"
                       : on("CONFIG_NO_HZ_IDLE")  ? "idle"
                       : on("CONFIG_HZ_PERIODIC") ? "periodic (no NO_HZ)"
                                                  : "unknown";
    json out{{"config", mode}};
    std::string why;
    if (auto cpus = read_first_line("/sys/devices/system/cpu/nohz_full", &why))
        out["nohz_full_cpus"] = *cpus;
    return out;
}

// The boot parameters that switch CPU vulnerability mitigations on or off
// (mitigations=, nopti, spectre_v2=, ...): a setting of the machine, where
// what sysfs reports under vulnerabilities is also the kernel's doing.
json boot_mitigations(const std::string& cmdline) {
    static const char* const prefixes[] = {"mitigations=",
                                           "nospectre",
                                           "spectre_v2",
                                           "spectre_bhi=",
                                           "pti=",
                                           "nopti",
                                           "mds=",
                                           "tsx=",
                                           "l1tf=",
                                           "retbleed=",
                                           "srbds=",
                                           "mmio_stale_data=",
                                           "gather_data_sampling=",
                                           "spec_store_bypass_disable=",
                                           "nospec_store_bypass_disable",
                                           "ssbd=",
                                           "kpti=",
                                           "spec_rstack_overflow=",
                                           "reg_file_data_sampling="};
    json words = json::array();
    std::istringstream in(cmdline);
    std::string word;
    while (in >> word)
        for (const char* p : prefixes)
            if (word.rfind(p, 0) == 0) {
                words.push_back(word);
                break;
            }
    return words;
}

json vulnerabilities() {
    const fs::path dir = "/sys/devices/system/cpu/vulnerabilities";
    std::error_code ec;
    json out = json::object();
    for (const auto& entry : fs::directory_iterator(dir, ec))
        out[entry.path().filename().string()] = line_fact(entry.path().string());
    if (ec) return unreadable(dir.string() + ": " + ec.message());
    return out;
}

json swap() {
    std::string why;
    auto text = read_text_file("/proc/swaps", &why);
    if (!text) return unreadable(why);
    json devices = json::array();
    std::istringstream in(*text);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string name, type;
        std::uint64_t size_kib = 0;
        if (f >> name >> type >> size_kib)
            devices.push_back({{"device", name}, {"type", type}, {"size_kib", size_kib}});
    }
    return {{"devices", devices}, {"enabled", !devices.empty()}};
}

json cgroup_version() {
    struct statfs st;
    if (::statfs("/sys/fs/cgroup", &st) != 0) return unreadable("/sys/fs/cgroup: not mounted");
    constexpr long kCgroup2Magic = 0x63677270, kTmpfsMagic = 0x01021994;
    if (st.f_type == kCgroup2Magic) return "v2 (unified)";
    if (st.f_type == kTmpfsMagic) {
        if (::statfs("/sys/fs/cgroup/unified", &st) == 0 && st.f_type == kCgroup2Magic)
            return "hybrid (v1 controllers, v2 at /sys/fs/cgroup/unified)";
        return "v1";
    }
    return unreadable("/sys/fs/cgroup is neither cgroup2 nor a tmpfs of v1 hierarchies");
}

// The mount under workdir: the /proc/self/mountinfo line of its device
// with the longest mount point that contains it.
json workdir_facts(const std::string& workdir) {
    json out;
    std::error_code ec;
    const fs::path dir = fs::canonical(workdir, ec);
    if (ec) return unreadable(workdir + ": " + ec.message());
    out["path"] = dir.string();
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) return unreadable(dir.string() + ": cannot stat");
    const std::string numbers =
        std::to_string(::major(st.st_dev)) + ":" + std::to_string(::minor(st.st_dev));
    std::string why;
    auto mountinfo = read_text_file("/proc/self/mountinfo", &why);
    std::size_t best = 0;
    if (mountinfo) {
        std::istringstream in(*mountinfo);
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream f(line);
            std::string id, parent, devno, root, point, options, word;
            f >> id >> parent >> devno >> root >> point >> options;
            while (f >> word && word != "-") {
            }
            std::string type, source, super;
            f >> type >> source >> super;
            const std::string d = dir.string();
            const bool contains =
                d == point || point == "/" || (d.rfind(point, 0) == 0 && d[point.size()] == '/');
            if (devno != numbers || !contains || point.size() < best) continue;
            best = point.size();
            out["mount_point"] = point;
            out["fs_type"] = type;
            out["source"] = source;
            out["mount_options"] = options;
            out["super_options"] = super;
        }
    }
    if (!out.contains("fs_type"))
        out["fs_type"] = unreadable(mountinfo ? "no mountinfo line for device " + numbers : why);
    const BlockDevice dev = block_device_of(dir.string());
    if (!dev.found) {
        out["io_scheduler"] = unreadable(dev.reason);
        return out;
    }
    out["device"] = dev.name;
    out["disk"] = dev.disk;
    const std::string queue = "/sys/block/" + dev.disk + "/queue/";
    std::string sched_why;
    if (auto line = read_first_line(queue + "scheduler", &sched_why))
        out["io_scheduler"] = bracketed_choice(*line).empty() ? *line : bracketed_choice(*line);
    else
        out["io_scheduler"] = unreadable(sched_why);
    out["rotational"] = line_fact(queue + "rotational");
    return out;
}

}  // namespace

std::string preemption_model(const std::map<std::string, std::string>& cfg) {
    for (auto [key, name] : {std::pair{"CONFIG_PREEMPT_RT", "rt"},
                             {"CONFIG_PREEMPT", "full"},
                             {"CONFIG_PREEMPT_LAZY", "lazy"},
                             {"CONFIG_PREEMPT_VOLUNTARY", "voluntary"},
                             {"CONFIG_PREEMPT_NONE", "none"}}) {
        auto it = cfg.find(key);
        if (it != cfg.end() && it->second == "y") return name;
    }
    return "unknown";
}

KernelConfigText read_kernel_config_text() {
    KernelConfigText config;
    std::string gz_why;
    if (::access("/proc/config.gz", R_OK) == 0) {
        config.text = gunzip_file("/proc/config.gz", gz_why);
        if (!config.text.empty()) {
            config.source = "/proc/config.gz";
            return config;
        }
    } else {
        gz_why = "no /proc/config.gz (kernel without CONFIG_IKCONFIG_PROC)";
    }
    const std::string boot = "/boot/config-" + release();
    std::string boot_why;
    if (auto text = read_text_file(boot, &boot_why)) {
        config.text = *text;
        config.source = boot;
        return config;
    }
    config.reason = gz_why + "; " + boot_why;
    return config;
}

std::map<std::string, std::string> parse_kernel_config(const std::string& text) {
    std::map<std::string, std::string> cfg;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("CONFIG_", 0) != 0) continue;
        if (auto eq = line.find('='); eq != std::string::npos)
            cfg[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return cfg;
}

std::string kernel_compiler(const std::string& proc_version) {
    // "Linux version R (user@host) (COMPILER, LINKER) #1 ...": the second
    // parenthesised group, whose own parentheses nest.
    std::size_t pos = proc_version.find('(');
    if (pos == std::string::npos) return {};
    pos = proc_version.find(") (", pos);
    if (pos == std::string::npos) return {};
    const std::size_t begin = pos + 3;
    int depth = 1;
    for (std::size_t i = begin; i < proc_version.size(); ++i) {
        if (proc_version[i] == '(') ++depth;
        if (proc_version[i] == ')' && --depth == 0) return proc_version.substr(begin, i - begin);
    }
    return {};
}

std::string bracketed_choice(const std::string& text) {
    const auto open = text.find('['), close = text.find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) return {};
    return text.substr(open + 1, close - open - 1);
}

json kernel_facts(const std::string& workdir) {
    json facts;
    const KernelConfigText config = read_kernel_config_text();
    const auto cfg = parse_kernel_config(config.text);
    if (config.text.empty())
        facts["config"] = unreadable(config.reason);
    else
        facts["config"] = {{"source", config.source}, {"sha256", sha256_hex(config.text)}};
    auto config_value = [&](const char* key) {
        auto it = cfg.find(key);
        if (it != cfg.end()) return json(it->second);
        return unreadable(config.text.empty() ? config.reason
                                              : std::string(key) + " not in " + config.source);
    };
    facts["config_hz"] = config_value("CONFIG_HZ");
    const std::string cmdline = read_first_line("/proc/cmdline").value_or("");
    facts["cmdline"] = line_fact("/proc/cmdline");
    facts["preemption"] =
        config.text.empty() ? unreadable(config.reason) : preemption(cfg, cmdline);
    facts["no_hz"] = config.text.empty() ? unreadable(config.reason) : no_hz(cfg);
    const std::string cs = "/sys/devices/system/clocksource/clocksource0/";
    facts["clocksource"] = {{"current", line_fact(cs + "current_clocksource")},
                            {"available", line_fact(cs + "available_clocksource")}};
    std::string why;
    if (auto version = read_first_line("/proc/version", &why)) {
        const std::string compiler = kernel_compiler(*version);
        facts["compiler"] = compiler.empty()
                                ? unreadable("no compiler in /proc/version: " + *version)
                                : json(compiler);
    } else {
        facts["compiler"] = unreadable(why);
    }
    facts["vulnerabilities"] = vulnerabilities();
    facts["boot_mitigations"] = boot_mitigations(cmdline);
    facts["smt"] = {{"control", line_fact("/sys/devices/system/cpu/smt/control")},
                    {"active", line_fact("/sys/devices/system/cpu/smt/active")}};
    auto choice = [](const std::string& path) {
        json line = line_fact(path);
        return line.is_string() ? json(bracketed_choice(line.get<std::string>())) : line;
    };
    facts["transparent_hugepage"] = {
        {"enabled", choice("/sys/kernel/mm/transparent_hugepage/enabled")},
        {"defrag", choice("/sys/kernel/mm/transparent_hugepage/defrag")}};
    facts["swap"] = swap();
    facts["numa_nodes"] = line_fact("/sys/devices/system/node/online");
    facts["cgroup"] = cgroup_version();
    facts["workdir"] = workdir_facts(workdir);
    return facts;
}

}  // namespace contest
