#include "contest/run/places.h"

#include <algorithm>
#include <string>

#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest {

// The entries, one in each place's file (defined there `extern const`: a
// const at namespace scope is the file's alone otherwise).
extern const PlaceInfo kHostPlace;
extern const PlaceInfo kGuestsPlace;
extern const PlaceInfo kBootPlace;

namespace {

// Whether the config has what an exclusion names; nullopt for what a
// RunConfig does not show (the CLI checks those: --label, --latency-raw).
std::optional<bool> config_has(const RunConfig& config, const PlaceExclusion& e) {
    if (e.option == "vary") return !config.vary.empty();
    if (e.option == "resume") return !config.resume.empty();
    if (e.option == "runs" && e.value == "auto") return config.auto_runs.has_value();
    if (e.option == "order" && e.value == "blocks") return config.order == RunOrder::blocks;
    return std::nullopt;
}

}  // namespace

const std::vector<const PlaceInfo*>& place_table() {
    static const std::vector<const PlaceInfo*> table{&kHostPlace, &kGuestsPlace, &kBootPlace};
    return table;
}

const PlaceInfo& place_info(RunPlace place) {
    for (const PlaceInfo* p : place_table())
        if (p->place == place) return *p;
    throw std::logic_error("a place without its entry in the place table");
}

RunPlace choose_place(const std::function<bool(std::string_view option)>& given) {
    const PlaceInfo* chosen = nullptr;
    for (const PlaceInfo* p : place_table()) {
        if (p->option.empty() || !given(p->option)) continue;
        if (chosen)
            throw UsageError("--" + std::string(p->option) + " does not go with --" +
                             std::string(chosen->option));
        chosen = p;
    }
    return chosen ? chosen->place : RunPlace::host;
}

std::string exclusion_text(const PlaceInfo& place, const PlaceExclusion& e) {
    std::string text = "--" + std::string(e.option);
    if (!e.value.empty()) text += " " + std::string(e.value);
    text += " does not go with --" + std::string(place.option);
    if (!e.why.empty()) text += ": " + std::string(e.why);
    return text;
}

std::string exclusions_help(const PlaceInfo& place) {
    std::vector<std::string> options;
    for (const PlaceExclusion& e : place.excludes)
        options.push_back("--" + std::string(e.option) +
                          (e.value.empty() ? "" : " " + std::string(e.value)));
    return options.empty() ? "" : "not with " + join(options, ", ");
}

void check_place(const RunConfig& config) {
    const PlaceInfo& place = place_info(config.place);
    for (const PlaceExclusion& e : place.excludes)
        if (config_has(config, e).value_or(false)) throw UsageError(exclusion_text(place, e));
    // One kernel is a measurement of that kernel, as a host run of one
    // label is (a track's point, a kernel's table for a post).
    if (!place.option.empty() && config.kernels.empty())
        throw UsageError("--" + std::string(place.option) +
                         " needs a kernel (LABEL=" + std::string(place.value_name) + ")");
}

std::vector<LabelRun> kernel_labels(const RunConfig& config, const RunPlan&) {
    const std::string option(place_info(config.place).option);
    std::vector<LabelRun> labels;
    for (const auto& kernel : config.kernels) {
        check_label_name(kernel.label, "--" + option + ": the label",
                         " (--" + option + " " + printable(kernel.label) + "=...)");
        for (const auto& other : labels)
            if (other.label == kernel.label)
                throw UsageError("--" + option + ": two kernels have the label '" + kernel.label +
                                 "'");
        labels.emplace_back().label = kernel.label;
    }
    return labels;
}

}  // namespace contest
