#include "contest/history/file_keys.h"

#include <cmath>

#include "contest/sys/json_fields.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"

namespace contest::history {

using nlohmann::json;

namespace {

const json* object_field(const json& j, const char* key) {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    return it != j.end() && it->is_object() ? &*it : nullptr;
}

std::string text_field(const json* j, const char* key) {
    return j ? valid_utf8(string_at(*j, key)) : "";
}

json json_field(const json* j, const char* key) {
    if (!j || !j->is_object()) return nullptr;
    auto it = j->find(key);
    return it != j->end() ? *it : json();
}

std::string identity_sha256_of(const json& facts) {
    return sha256_hex(facts.dump(-1, ' ', false, json::error_handler_t::replace));
}

std::string word_of_value(const json& v) {
    if (v.is_number_integer()) return std::to_string(v.get<long long>());
    if (v.is_number()) return std::to_string(v.get<double>());
    return v.is_string() ? valid_utf8(v.get<std::string>()) : "";
}

}  // namespace

Keyed machine_of(const ResultFile& file) {
    const json* vm = object_field(file.config, "vm");
    const json* host = vm ? object_field(*vm, "host_system") : nullptr;
    if (!host) host = &file.system;
    json facts = {{"hostname", json_field(host, "hostname")},
                  {"cpu_model", json_field(host, "cpu_model")},
                  {"cpus_online", json_field(host, "cpus_online")},
                  {"machine", json_field(host, "machine")}};
    const json mem = json_field(host, "mem_total_bytes");
    facts["mem_gib"] = mem.is_number() ? json(std::llround(mem.get<double>() / (1 << 30))) : json();
    std::string name = text_field(host, "hostname");
    if (name.empty()) name = "?";
    name += " (" + text_field(host, "cpu_model") + ", " +
            word_of_value(json_field(host, "cpus_online")) + " CPUs";
    if (vm) {
        facts["guest"] = {{"accel", json_field(vm, "accel")},
                          {"cpus", json_field(vm, "cpus")},
                          {"memory_mib", json_field(vm, "memory_mib")}};
        name += "; " + text_field(vm, "accel") + " guests of " +
                word_of_value(json_field(vm, "cpus")) + " CPUs";
    }
    name += ")";
    return {identity_sha256_of(facts), name, facts};
}

Keyed workload_of(const ResultFile& file) {
    const json* w = object_field(file.config, "workload");
    json facts = {{"kind", json_field(w, "kind")},
                  {"synthetic_size", json_field(w, "synthetic_size")},
                  {"project_hash", json_field(w, "project_hash")},
                  {"jobs", json_field(w, "jobs")},
                  {"command", json_field(w, "command")}};
    std::string name = text_field(w, "kind");
    if (name.empty()) name = "?";
    if (const json size = json_field(w, "synthetic_size"); !size.is_null())
        name += "-" + word_of_value(size);
    if (const json jobs = json_field(w, "jobs"); !jobs.is_null())
        name += " -j" + word_of_value(jobs);
    json knobs = json::object();
    if (const json* vary = object_field(file.config, "vary"))
        if (const json* values = object_field(*vary, "values"))
            for (const auto& [knob, value] : values->items())
                if (knob != "kernel") {
                    knobs[knob] = value;
                    name += "," + printable(knob) + "=" + printable(word_of_value(value));
                }
    facts["knobs"] = knobs;
    return {identity_sha256_of(facts), name, facts};
}

KernelKey kernel_of(const ResultFile& file) {
    const json* record = object_field(file.config, "kernel");
    if (!record) record = object_field(file.config, "boot");
    const json* build = record ? object_field(*record, "build") : nullptr;
    KernelKey k;
    k.release = text_field(record, "release");
    if (k.release.empty()) k.release = text_field(build, "release");
    if (k.release.empty()) k.release = text_field(&file.system, "kernel_release");
    k.tree = text_field(build, "tree");
    k.ref = text_field(build, "ref");
    k.commit = text_field(build, "commit");
    k.config_sha256 = text_field(build, "dot_config_sha256");
    if (k.config_sha256.empty() && record)
        k.config_sha256 = text_field(object_field(*record, "config"), "sha256");
    if (k.config_sha256.empty())
        if (const json* sk = object_field(file.system, "kernel"))
            k.config_sha256 = text_field(object_field(*sk, "config"), "sha256");
    k.build = text_field(build, "key");
    if (k.build.empty()) k.build = text_field(record, "version");
    if (k.build.empty()) k.build = text_field(&file.system, "kernel_version");
    k.identity_sha256 = identity_sha256_of(json{{"release", k.release},
                                                {"tree", k.tree},
                                                {"commit", k.commit},
                                                {"config_sha256", k.config_sha256},
                                                {"build", k.build}});
    return k;
}

}  // namespace contest::history
