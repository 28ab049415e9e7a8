#include "contest/kbuild/kernel_config.h"

#include <set>

#include "contest/kbuild/guest_config.h"
#include "contest/observe/kernel_facts.h"
#include "contest/sys/errors.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"
#include "contest/sys/text_file.h"

namespace contest::kbuild {

std::string ConfigChoice::sha256() const {
    return sha256_hex(std::string(on_tinyconfig ? "tinyconfig+kvm_guest.config\n" : "file\n") +
                      text);
}

ConfigChoice choose_config(const std::filesystem::path& config_file, BuildTarget target) {
    ConfigChoice c;
    if (!config_file.empty()) {
        std::string why;
        const auto text = read_text_file(config_file.string(), &why);
        if (!text)
            throw UsageError("--build-config " + printable(config_file.string()) + ": " + why);
        c.source = "--build-config " + std::filesystem::absolute(config_file).string();
        c.text = *text;
        return c;
    }
    if (target == BuildTarget::guest) {
        c.source = "tinyconfig, kvm_guest.config and contest's guest needs";
        c.text = guest_config_fragment();
        c.on_tinyconfig = true;
        return c;
    }
    const KernelConfigText running = read_kernel_config_text();
    if (running.text.empty())
        throw EnvironmentError(
            "--boot builds with the running kernel's config, which cannot be found (" +
            running.reason + "): give one with --build-config FILE");
    c.source = "the running kernel's, " + running.source;
    c.text = running.text;
    return c;
}

std::vector<ConfigChange> config_differences(const std::string& base, const std::string& other) {
    const auto a = parse_kernel_config(base), b = parse_kernel_config(other);
    std::set<std::string> names;
    for (const auto& [name, value] : a) names.insert(name);
    for (const auto& [name, value] : b) names.insert(name);
    std::vector<ConfigChange> changes;
    for (const auto& name : names) {
        const auto in_a = a.find(name), in_b = b.find(name);
        const std::string va = in_a == a.end() ? "" : in_a->second;
        const std::string vb = in_b == b.end() ? "" : in_b->second;
        if (va != vb) changes.push_back({name, va, vb});
    }
    return changes;
}

std::string change_text(const ConfigChange& c) {
    return c.option + ": " + (c.base.empty() ? "unset" : c.base) + " -> " +
           (c.other.empty() ? "unset" : c.other);
}

}  // namespace contest::kbuild
