#include "contest/kbuild/build_record.h"

#include "contest/sys/text.h"

namespace contest::kbuild {

nlohmann::json KernelBuild::to_json() const {
    nlohmann::json patches_json = nlohmann::json::array();
    for (const auto& p : patches)
        patches_json.push_back({{"file", valid_utf8(p.path.string())}, {"sha256", p.sha256}});
    nlohmann::json changes = nlohmann::json::array();
    for (const auto& c : config_changes)
        changes.push_back({{"option", c.option}, {"base", c.base}, {"this", c.other}});
    nlohmann::json j = {{"label", label},
                        {"spec", valid_utf8(spec)},
                        {"tree", valid_utf8(tree)},
                        {"ref", valid_utf8(ref)},
                        {"commit", commit},
                        {"subject", valid_utf8(subject)},
                        {"patches", patches_json},
                        {"head", head},
                        {"config_source", valid_utf8(config_source)},
                        {"options", options},
                        {"config_sha256", config_sha256},
                        {"dot_config_sha256", dot_config_sha256},
                        {"compiler", valid_utf8(compiler)},
                        {"key", key},
                        {"release", valid_utf8(release)},
                        {"cached", cached},
                        {"cache_hit", cache_hit},
                        {"build_s", build_s},
                        {"image", valid_utf8(image)},
                        {"log", valid_utf8(log)},
                        {"config_changes", changes}};
    if (!localversion.empty()) j["localversion"] = localversion;
    if (!toolchain.empty()) j["toolchain"] = valid_utf8(toolchain);
    if (!changes_against.empty()) j["config_changes_against"] = changes_against;
    if (ccache_hits) j["ccache_hits"] = *ccache_hits;
    if (ccache_misses) j["ccache_misses"] = *ccache_misses;
    return j;
}

std::optional<KernelBuild> KernelBuild::from_json(const nlohmann::json& j) {
    try {
        KernelBuild b;
        b.label = j.at("label");
        b.spec = j.at("spec");
        b.tree = j.at("tree");
        b.ref = j.at("ref");
        b.commit = j.at("commit");
        b.subject = j.at("subject");
        for (const auto& p : j.at("patches"))
            b.patches.push_back({p.at("file").get<std::string>(), p.at("sha256")});
        b.head = j.at("head");
        b.config_source = j.at("config_source");
        if (j.contains("options")) b.options = j["options"].get<std::vector<std::string>>();
        b.config_sha256 = j.at("config_sha256");
        b.dot_config_sha256 = j.at("dot_config_sha256");
        b.compiler = j.at("compiler");
        b.key = j.at("key");
        b.release = j.at("release");
        b.localversion = j.value("localversion", "");
        b.toolchain = j.value("toolchain", "");
        b.cached = j.at("cached");
        b.build_s = j.at("build_s");
        b.image = j.at("image");
        b.log = j.at("log");
        if (j.contains("ccache_hits")) b.ccache_hits = j["ccache_hits"].get<long long>();
        if (j.contains("ccache_misses")) b.ccache_misses = j["ccache_misses"].get<long long>();
        return b;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

}  // namespace contest::kbuild
