#include "contest/report/kcidb_objects.h"

#include <algorithm>
#include <filesystem>
#include <regex>

#include "contest/report/formats.h"
#include "contest/sys/json_fields.h"
#include "contest/sys/number_text.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"

namespace contest::kcidb {

namespace {

// KCIDB's own patterns (kcidb-io v3.0 on, unchanged in v4.4).
const std::regex kCommitHash("^[0-9a-f]{40}$");
const std::regex kRepositoryUrl("^(https|git)://.*$");
const std::regex kArchitecture("^[a-z0-9_]+$");

const nlohmann::json& object_at(const nlohmann::json& j, const char* key) {
    static const nlohmann::json none = nlohmann::json::object();
    return j.is_object() && j.contains(key) && j[key].is_object() ? j[key] : none;
}

// What contest built the label's kernel from, as kbuild recorded it
// (build_record.h): under --kernel in config.kernel.build, under --boot in
// config.boot.build; an empty object for a kernel contest did not build.
const nlohmann::json& build_record_of(const LabelInfo& l) {
    const nlohmann::json& guest = object_at(object_at(l.config, "kernel"), "build");
    return guest.empty() ? object_at(object_at(l.config, "boot"), "build") : guest;
}

}  // namespace

std::string object_id(const std::string& origin, const std::string& made_of) {
    return origin + ":" + sha256_hex(made_of).substr(0, 32);
}

ojson as_ordered(const nlohmann::json& j) {
    return ojson::parse(j.dump());
}

ojson misc_number(double value) {
    return as_ordered(json_number(value));
}

std::map<std::string, std::string> label_keys(const std::vector<ResultFile>& files) {
    std::map<std::string, std::vector<std::string>> digests;
    for (const auto& f : files) digests[f.label].push_back(sha256_hex(to_json(f).dump()));
    std::map<std::string, std::string> keys;
    for (auto& [label, list] : digests) {
        std::sort(list.begin(), list.end());
        keys[label] = sha256_hex(label + "\n" + join(list, "\n"));
    }
    return keys;
}

ojson checkout_of(const LabelInfo& l, const std::string& key, const std::string& origin) {
    const nlohmann::json& kernel = object_at(l.config, "kernel");
    const nlohmann::json& build = build_record_of(l);
    const std::string release = string_at(l.system, "kernel_release");
    ojson c = {{"id", object_id(origin, "checkout\n" + key)}, {"origin", origin}};
    // A label built from a git ref: its commit as kbuild recorded it (the
    // tree's commit the patches, if any, went on), or as an older or a
    // hand-made file has it in config.kernel; KCIDB takes only a full hash
    // and a remote URL (kbuild's tree is a local folder).
    if (const std::string tree = string_at(kernel, "tree_name"); !tree.empty())
        c["tree_name"] = tree;
    for (const std::string& url : {string_at(kernel, "repository"), string_at(build, "tree")})
        if (std::regex_match(url, kRepositoryUrl) && !c.contains("git_repository_url"))
            c["git_repository_url"] = url;
    for (const std::string& commit : {string_at(build, "commit"), string_at(kernel, "commit")})
        if (std::regex_match(commit, kCommitHash) && !c.contains("git_commit_hash"))
            c["git_commit_hash"] = commit;
    if (const std::string branch = string_at(kernel, "branch"); !branch.empty())
        c["git_repository_branch"] = branch;
    const std::string described = string_at(kernel, "describe");
    if (!described.empty() || !release.empty())
        c["git_commit_name"] = described.empty() ? release : described;
    c["comment"] = "contest label " + l.label + (release.empty() ? "" : ": kernel " + release);
    ojson misc = {{"label", l.label}};
    if (!release.empty()) misc["kernel_release"] = release;
    if (const std::string v = string_at(l.system, "kernel_version"); !v.empty())
        misc["kernel_version"] = v;
    if (const std::string image = string_at(kernel, "image"); !image.empty())
        misc["kernel_image"] = image;
    // The ref it was given and the patches put on it: the commit alone is
    // not the source of a patched kernel.
    if (const std::string ref = string_at(build, "ref"); !ref.empty()) misc["build_ref"] = ref;
    if (const std::string subject = string_at(build, "subject"); !subject.empty())
        misc["build_subject"] = subject;
    if (build.contains("patches") && build["patches"].is_array() && !build["patches"].empty())
        misc["build_patches"] = as_ordered(build["patches"]);
    c["misc"] = misc;
    return c;
}

std::map<std::string, Boots> boots_of(const std::vector<ResultFile>& files) {
    std::map<std::string, Boots> out;
    for (const auto& f : files)
        for (const auto& r : f.runs) {
            Boots& b = out[f.label];
            if (r.status != RunStatus::boot_failed) {
                b.any_booted = true;
                continue;
            }
            b.failed_rounds.insert(r.round);
            if (std::find(b.why.begin(), b.why.end(), r.reason) == b.why.end())
                b.why.push_back(r.reason);
        }
    return out;
}

ojson build_of(const LabelInfo& l, const Boots& boots, const std::string& key,
               const std::string& checkout_id, const std::string& origin) {
    const nlohmann::json& kernel = object_at(l.system, "kernel");
    const nlohmann::json& config = object_at(kernel, "config");
    ojson b = {{"checkout_id", checkout_id},
               {"id", object_id(origin, "build\n" + key)},
               {"origin", origin}};
    if (const std::string arch = string_at(l.system, "machine");
        std::regex_match(arch, kArchitecture))
        b["architecture"] = arch;
    if (const std::string compiler = string_at(kernel, "compiler"); !compiler.empty())
        b["compiler"] = compiler;
    const std::string source = string_at(config, "source");
    if (!source.empty()) b["config_name"] = std::filesystem::path(source).filename().string();
    b["comment"] = "the kernel label " + l.label + "'s runs ran under";
    ojson misc = ojson::object();
    // Valid: it booted and ran the runs. One that never booted is left
    // unsaid (contest cannot tell a bad build from a bad boot); its boots
    // are a failed test of their own (boot_test_of).
    if (boots.any_booted || boots.failed_rounds.empty())
        b["valid"] = true;
    else
        misc["never_booted"] = join(boots.why, "; ");
    if (const std::string sha = string_at(config, "sha256"); !sha.empty())
        misc["config_sha256"] = sha;
    if (!source.empty()) misc["config_source"] = source;
    if (kernel.contains("preemption")) misc["preemption"] = as_ordered(kernel["preemption"]);
    if (kernel.contains("config_hz")) misc["config_hz"] = as_ordered(kernel["config_hz"]);
    if (!misc.empty()) b["misc"] = misc;
    return b;
}

ojson boot_test_of(const LabelInfo& l, const Boots& boots, const std::string& key,
                   const std::string& build_id, const std::string& origin) {
    const std::size_t failed = boots.failed_rounds.size();
    return {{"build_id", build_id},
            {"id", object_id(origin, "test\n" + key + "\ncontest.boot")},
            {"origin", origin},
            {"path", "contest.boot"},
            {"comment", "the turns of --boot in which label " + l.label + "'s kernel did not boot"},
            {"number", {{"value", failed}, {"unit", failed == 1 ? "boot" : "boots"}}},
            {"status", "FAIL"},
            {"misc", {{"label", l.label}, {"why", join(boots.why, "; ")}}}};
}

ojson environment_of(const LabelInfo& l, const std::string& contest_version) {
    const std::string host = string_at(l.system, "hostname");
    const std::string cpu = string_at(l.system, "cpu_model");
    std::string comment = host.empty() ? "a machine" : host;
    if (!cpu.empty()) comment += ": " + cpu;
    if (l.system.contains("cpus_online") && l.system["cpus_online"].is_number())
        comment += ", " + std::to_string(l.system["cpus_online"].get<long>()) + " CPUs online";
    if (l.system.contains("mem_total_bytes") && l.system["mem_total_bytes"].is_number())
        comment += ", " + fixed(l.system["mem_total_bytes"].get<double>() / (1 << 30), 1) + " GiB";
    ojson misc = {{"contest_version", contest_version}};
    for (const char* key : {"hostname", "cpu_model", "cpus_online", "mem_total_bytes", "machine"})
        if (l.system.contains(key) && !l.system[key].is_null())
            misc[key] = as_ordered(l.system[key]);
    const nlohmann::json& workload = object_at(l.config, "workload");
    if (const std::string kind = string_at(workload, "kind"); !kind.empty())
        misc["workload"] = kind;
    return {{"comment", comment}, {"misc", misc}};
}

}  // namespace contest::kcidb
