#include "contest/run/plan/places.h"

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

namespace {

// The table, and the places tests add to it (ExtraPlace).
std::vector<const PlaceInfo*>& table_of_places() {
    static std::vector<const PlaceInfo*> table{&kHostPlace, &kGuestsPlace, &kBootPlace};
    return table;
}

}  // namespace

const std::vector<const PlaceInfo*>& place_table() {
    return table_of_places();
}

const PlaceInfo& place_info(RunPlace place) {
    for (const PlaceInfo* p : place_table())
        if (p->place == place) return *p;
    throw std::logic_error("a place without its entry in the place table");
}

std::string kernel_word(RunPlace place, const KernelSpec& kernel) {
    return "--" + std::string(place_info(place).option) + "=" + kernel.label + "=" + kernel.image;
}

std::optional<RunPlace> place_named(std::string_view name) {
    for (const PlaceInfo* p : place_table())
        if (p->name == name) return p->place;
    return std::nullopt;
}

PlaceLife& life_of(const std::vector<PlaceOptions>& options, RunPlace place) {
    const auto& table = place_table();
    for (std::size_t i = 0; i < table.size() && i < options.size(); ++i)
        if (table[i]->place == place && options[i].life) return *options[i].life;
    throw std::logic_error("a place without its life among the places' options");
}

std::optional<std::pair<PlaceLife*, LifeAsked>> asked_life(
    const std::vector<PlaceOptions>& options) {
    for (const PlaceOptions& o : options)
        if (o.life)
            if (std::optional<LifeAsked> asked = o.life->asked())
                return std::pair{o.life.get(), std::move(*asked)};
    return std::nullopt;
}

ExtraPlace::ExtraPlace(const PlaceInfo& place) : place_(&place) {
    for (const PlaceInfo* p : place_table())
        if (p->place == place.place || p->name == place.name)
            throw std::logic_error("ExtraPlace: a place the table has already");
    table_of_places().push_back(place_);
}

ExtraPlace::~ExtraPlace() {
    auto& table = table_of_places();
    table.erase(std::remove(table.begin(), table.end(), place_), table.end());
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

void check_label_spec(const std::string& option, const std::string& value_name,
                      const std::vector<std::string>& specs, bool value_may_be_empty) {
    for (const auto& spec : specs) {
        const auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0 || (!value_may_be_empty && eq + 1 == spec.size()))
            throw UsageError("--" + option + " '" + printable(spec) +
                             "': expected LABEL=" + value_name);
    }
}

std::vector<KernelSpec> label_specs(const std::vector<std::string>& specs) {
    std::vector<KernelSpec> out;
    for (const auto& spec : specs) {
        const auto eq = spec.find('=');
        out.push_back({spec.substr(0, eq), spec.substr(eq + 1)});
    }
    return out;
}

TableOption place_option_row(const PlaceInfo& place, std::vector<std::string>* words,
                             const std::string& help) {
    const std::string option(place.option), value_name(place.value_name);
    auto* value = checked(words, [option, value_name](const std::vector<std::string>& specs) {
        check_label_spec(option, value_name, specs, false);
    });
    value->value_name("LABEL=" + value_name);
    return {option.c_str(), OptionScope::host, value, help + "; " + exclusions_help(place)};
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
