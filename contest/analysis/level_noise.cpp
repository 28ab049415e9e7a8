#include "contest/analysis/level_noise.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <span>
#include <utility>

#include "contest/analysis/measures.h"
#include "contest/analysis/stats.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

double LevelVariances::between_share() const {
    const double total = between_boot + within_boot;
    return total > 0 ? between_boot / total : 0;
}

std::optional<LevelVariances> boot_run_variances(const std::vector<std::vector<double>>& by_boot) {
    std::vector<std::vector<double>> boots;
    for (const auto& runs : by_boot) {
        std::vector<double> finite;
        for (const double y : runs)
            if (std::isfinite(y)) finite.push_back(y);
        if (!finite.empty()) boots.push_back(std::move(finite));
    }
    LevelVariances v;
    v.boots = boots.size();
    double sum = 0, sum_n2 = 0;
    for (const auto& runs : boots) {
        v.runs += runs.size();
        sum_n2 += static_cast<double>(runs.size() * runs.size());
        for (const double y : runs) sum += y;
    }
    if (v.boots < 2 || v.runs <= v.boots) return std::nullopt;
    const double a = static_cast<double>(v.boots), n = static_cast<double>(v.runs);
    v.mean = sum / n;
    // The sums of squares between the boots' means and of the runs about them.
    double ssb = 0, ssw = 0;
    for (const auto& runs : boots) {
        double boot_sum = 0;
        for (const double y : runs) boot_sum += y;
        const double boot_mean = boot_sum / static_cast<double>(runs.size());
        ssb += static_cast<double>(runs.size()) * (boot_mean - v.mean) * (boot_mean - v.mean);
        for (const double y : runs) ssw += (y - boot_mean) * (y - boot_mean);
    }
    const double msb = ssb / (a - 1), msw = ssw / (n - a);
    // E[MSB] = s_w^2 + n0 s_b^2, with n0 the boots' size in effect (their
    // mean size when balanced); E[MSW] = s_w^2.
    const double n0 = (n - sum_n2 / n) / (a - 1);
    v.within_boot = msw;
    v.between_boot = std::max(0.0, (msb - msw) / n0);
    if (msw > 0) {
        v.f = msb / msw;
        v.p = stats::f_test_p(v.f, a - 1, n - a);
    } else {
        v.f = v.p = std::numeric_limits<double>::quiet_NaN();
    }
    return v;
}

double two_level_cost(const LevelVariances& v, const LevelCosts& costs, double runs_per_boot) {
    return (v.between_boot + v.within_boot / runs_per_boot) *
           (costs.boot_s + runs_per_boot * costs.run_s);
}

RunsPerBootAdvice advise_runs_per_boot(const LevelVariances& v, const LevelCosts& costs,
                                       unsigned cap) {
    RunsPerBootAdvice advice;
    cap = std::max(1u, cap);
    if (v.within_boot <= 0 || costs.boot_s <= 0) {
        // Runs within a boot vary not at all, or a boot costs nothing: each
        // run its own boot.
        advice.optimum = 1;
        return advice;
    }
    if (v.between_boot <= 0 || costs.run_s <= 0) {
        advice.optimum = std::numeric_limits<double>::infinity();
        advice.runs_per_boot = cap;
        advice.at_cap = true;
        return advice;
    }
    advice.optimum = std::sqrt((costs.boot_s / costs.run_s) * (v.within_boot / v.between_boot));
    if (advice.optimum >= cap) {
        advice.runs_per_boot = cap;
        advice.at_cap = true;
        return advice;
    }
    const double low = std::max(1.0, std::floor(advice.optimum));
    const double high = std::max(1.0, std::ceil(advice.optimum));
    advice.runs_per_boot = static_cast<unsigned>(
        two_level_cost(v, costs, high) < two_level_cost(v, costs, low) ? high : low);
    return advice;
}

namespace {

// The notes' order of measures: Time first, then the load's work, then
// the probes (by name, as the maps hold them).
int measure_rank(const std::string& measure) {
    return measure == "Time" ? 0 : measure == "Loads" ? 1 : 2;
}

// One run's figures by measure: Time, a load's work, each probe's p99.
std::map<std::string, double> level_measures(const RunRecord& run) {
    std::map<std::string, double> out;
    if (run.wall_s > 0) out["Time"] = run.wall_s;
    if (!run.load_unit.empty() && !run.load_not_counted) out["Loads"] = run.load_units;
    static const std::string prefix = "latency_", suffix = "_p99_us";
    for (const auto& [name, value] : run_measures(run))
        if (name.size() > prefix.size() + suffix.size() && name.starts_with(prefix) &&
            name.ends_with(suffix))
            out["p99 " + name.substr(prefix.size(), name.size() - prefix.size() - suffix.size())] =
                value;
    return out;
}

// A number of a JSON object read as untrusted: finite, else none.
std::optional<double> finite_at(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return std::nullopt;
    const double x = it->get<double>();
    return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
}

std::string sd_pct(double variance, double mean) {
    return mean != 0 ? fixed(std::sqrt(variance) / std::abs(mean) * 100, 1) + "%" : "-";
}

}  // namespace

std::vector<LevelNoise> level_noise_of(const std::vector<ResultFile>& files) {
    // label -> load -> measure -> boot -> runs, in the files' order of labels and loads.
    // A boot is its file's (files of one label may come from separate runs)
    // and its number there.
    using ByBoot = std::map<std::pair<std::size_t, int>, std::vector<double>>;
    std::map<std::string, std::map<std::string, std::map<std::string, ByBoot>>> runs;
    std::vector<std::pair<std::string, std::string>> order;
    for (std::size_t f = 0; f < files.size(); ++f)
        for (const auto& run : files[f].runs) {
            if (!run.ok() || run.boot <= 0) continue;
            auto& of_load = runs[files[f].label][run.load];
            if (of_load.empty()) order.emplace_back(files[f].label, run.load);
            for (const auto& [measure, value] : level_measures(run))
                of_load[measure][{f, run.boot}].push_back(value);
        }
    std::vector<LevelNoise> out;
    for (const auto& [label, load] : order) {
        std::vector<LevelNoise> of_load;
        for (const auto& [measure, by_boot] : runs[label][load]) {
            std::vector<std::vector<double>> groups;
            for (const auto& [boot, values] : by_boot) groups.push_back(values);
            if (const auto v = boot_run_variances(groups))
                of_load.push_back({label, load, measure, *v});
        }
        std::stable_sort(of_load.begin(), of_load.end(),
                         [&](const LevelNoise& x, const LevelNoise& y) {
                             return measure_rank(x.measure) < measure_rank(y.measure);
                         });
        out.insert(out.end(), of_load.begin(), of_load.end());
    }
    return out;
}

std::optional<LevelCosts> level_costs_of(const std::vector<ResultFile>& files,
                                         const std::string& label) {
    double up = 0, per_run = 0;
    std::size_t n = 0;
    for (const auto& file : files) {
        if (file.label != label || !file.config.is_object()) continue;
        const auto vm = file.config.find("vm");
        if (vm == file.config.end() || !vm->is_object()) continue;
        const double runs_per_boot = std::max(1.0, finite_at(*vm, "runs_per_boot").value_or(1));
        const auto boots = vm->find("boots");
        if (boots == vm->end() || !boots->is_array()) continue;
        for (const auto& boot : *boots) {
            if (!boot.is_object()) continue;
            const auto up_s = finite_at(boot, "up_s"), total_s = finite_at(boot, "total_s");
            if (!up_s || !total_s || *up_s <= 0 || *total_s <= *up_s) continue;
            up += *up_s;
            per_run += (*total_s - *up_s) / runs_per_boot;
            ++n;
        }
    }
    if (n == 0) return std::nullopt;
    return LevelCosts{up / static_cast<double>(n), per_run / static_cast<double>(n)};
}

void note_level_noise(const std::vector<ResultFile>& files, ReportModel& model) {
    const std::vector<LevelNoise> noise = level_noise_of(files);
    for (std::size_t i = 0; i < noise.size();) {
        const std::string& label = noise[i].label;
        const std::string& load = noise[i].load;
        std::size_t end = i;
        while (end < noise.size() && noise[end].label == label && noise[end].load == load) ++end;
        const LevelVariances& first = noise[i].variances;
        std::string line = printable(label) + ", " + printable(load) + ": noise by level (" +
                           std::to_string(first.boots) + " boots, " + std::to_string(first.runs) +
                           " runs; one-way random effects): ";
        const std::optional<LevelCosts> costs = level_costs_of(files, label);
        for (std::size_t k = i; k < end; ++k) {
            const LevelVariances& v = noise[k].variances;
            LevelNoiseRow row;
            row.label = label;
            row.load = load;
            row.measure = noise[k].measure;
            row.boots = v.boots;
            row.runs = v.runs;
            row.mean = v.mean;
            row.between_boot_variance = v.between_boot;
            row.within_boot_variance = v.within_boot;
            row.between_share = v.between_share();
            row.f = v.f;
            row.p = v.p;
            if (costs) {
                const RunsPerBootAdvice advice = advise_runs_per_boot(v, *costs);
                row.boot_s = costs->boot_s;
                row.run_s = costs->run_s;
                row.advised_runs_per_boot = advice.runs_per_boot;
                row.advice_at_cap = advice.at_cap;
            }
            model.level_noise.push_back(std::move(row));
            line += (k == i ? "" : "; ") + printable(noise[k].measure) + " " +
                    fixed(v.between_share() * 100, 0) + "% between boots (SD " +
                    sd_pct(v.between_boot, v.mean) + " of the mean between, " +
                    sd_pct(v.within_boot, v.mean) + " within)";
        }
        line += ".";
        if (costs) {
            line += " A boot costs " + fixed(costs->boot_s, 1) + " s, a run " +
                    fixed(costs->run_s, 1) +
                    " s: the runs a boot that give the narrowest mean for the time (Kalibera & "
                    "Jones; --runs-per-boot): ";
            // The advice the rows just made hold, one a measure.
            const auto rows = std::span(model.level_noise).last(end - i);
            for (std::size_t k = 0; k < rows.size(); ++k)
                line += (k == 0 ? "" : ", ") + printable(rows[k].measure) + " " +
                        std::to_string(*rows[k].advised_runs_per_boot) +
                        (rows[k].advice_at_cap ? " or more (its boots add no spread of their own)"
                                               : "");
            line += ".";
        }
        model.notes.push_back(line);
        i = end;
    }
}

namespace {

// The sample variance of xs (n - 1), of stats' summary: 0 below two.
double variance_of(const std::vector<double>& xs) {
    if (xs.size() < 2) return 0;
    const double sd = stats::summarize(xs).sd;
    return sd * sd;
}

// A guest cell's log figures by measure, keyed by (group, round): its ok runs
// that record a boot and a round.
using RoundKey = std::pair<std::string, int>;
std::map<std::string, std::map<RoundKey, double>> guest_log_figures(const Cell& cell) {
    std::map<std::string, std::map<RoundKey, double>> out;
    for (const SourcedRun& sr : cell.runs) {
        // Rounds pair only within one run's group (--kernel's labels share one).
        if (!sr.run.ok() || sr.run.boot <= 0 || sr.round <= 0 || sr.vary_group.empty()) continue;
        for (const auto& [measure, value] : level_measures(sr.run))
            if (value > 0 && std::isfinite(value))
                out[measure][{sr.vary_group, sr.round}] = std::log(value);
    }
    return out;
}

}  // namespace

void note_shared_noise(ReportModel& model) {
    for (const LoadBlock& block : model.blocks) {
        const Cell* base = nullptr;
        for (const Cell& c : block.cells)
            if (c.label == model.baseline) base = &c;
        if (!base) continue;
        const auto base_figures = guest_log_figures(*base);
        if (base_figures.empty()) continue;
        for (const Cell& cell : block.cells) {
            if (&cell == base) continue;
            std::vector<SharedNoiseRow> rows;
            for (const auto& [measure, by_round] : guest_log_figures(cell)) {
                const auto other = base_figures.find(measure);
                if (other == base_figures.end()) continue;
                std::vector<double> a, b, d;
                for (const auto& [key, value] : by_round)
                    if (const auto it = other->second.find(key); it != other->second.end()) {
                        a.push_back(value);
                        b.push_back(it->second);
                        d.push_back(value - it->second);
                    }
                if (d.size() < 3) continue;
                SharedNoiseRow row;
                row.label = cell.label;
                row.baseline = base->label;
                row.load = block.load;
                row.measure = measure;
                row.pairs = d.size();
                row.label_variance = variance_of(a);
                row.baseline_variance = variance_of(b);
                row.difference_variance = variance_of(d);
                const double both = row.label_variance + row.baseline_variance;
                row.shared_share =
                    both > 0 ? std::clamp(1 - row.difference_variance / both, 0.0, 1.0) : 0;
                rows.push_back(row);
            }
            if (rows.empty()) continue;
            std::stable_sort(rows.begin(), rows.end(),
                             [&](const SharedNoiseRow& x, const SharedNoiseRow& y) {
                                 return measure_rank(x.measure) < measure_rank(y.measure);
                             });
            std::string line = printable(cell.label) + " against " + printable(base->label) + ", " +
                               printable(block.load) + ": the rounds' shared noise (" +
                               std::to_string(rows.front().pairs) +
                               " rounds; the host's moment both guests ran at, which the pairs "
                               "by round cancel): ";
            for (std::size_t k = 0; k < rows.size(); ++k)
                line += (k ? ", " : "") + printable(rows[k].measure) + " " +
                        fixed(rows[k].shared_share * 100, 0) + "% of the spread";
            model.notes.push_back(line + ".");
            model.shared_noise.insert(model.shared_noise.end(), rows.begin(), rows.end());
        }
    }
}

}  // namespace contest
