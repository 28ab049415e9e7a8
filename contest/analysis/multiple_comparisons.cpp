#include "contest/analysis/multiple_comparisons.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "contest/sys/enum_names.h"
#include "contest/sys/errors.h"

namespace contest::stats {

namespace {

constexpr std::array<EnumName<Correction>, 3> kCorrectionNames{{
    {Correction::holm, "holm"},
    {Correction::bh, "bh"},
    {Correction::none, "none"},
}};

constexpr std::array<EnumName<Correction>, 3> kCorrectionDescriptions{{
    {Correction::holm, "Holm (family-wise error)"},
    {Correction::bh, "Benjamini-Hochberg (false discovery rate)"},
    {Correction::none, "none (each test alone)"},
}};

constexpr std::array<EnumName<Correction>, 3> kCorrectionTitles{{
    {Correction::holm, "Holm"},
    {Correction::bh, "Benjamini-Hochberg"},
    {Correction::none, "no correction"},
}};

}  // namespace

Correction parse_correction(const std::string& name) {
    if (auto c = value_in(kCorrectionNames, name)) return *c;
    throw UsageError("--correction '" + name + "': expected " +
                     names_in(kCorrectionNames, ", ", " or "));
}

const char* correction_name(Correction c) {
    return name_in(kCorrectionNames, c).data();
}

const char* correction_description(Correction c) {
    return name_in(kCorrectionDescriptions, c).data();
}

const char* correction_title(Correction c) {
    return name_in(kCorrectionTitles, c).data();
}

std::vector<double> adjust_p_values(std::span<const double> p, Correction c) {
    std::vector<double> out(p.begin(), p.end());
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (std::isfinite(p[i])) order.push_back(i);
    if (c == Correction::none || order.empty()) return out;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
    const double m = static_cast<double>(order.size());
    if (c == Correction::holm) {
        // Step down: the k-th smallest (from 0) times (m - k), never below an
        // earlier adjusted value.
        double running = 0;
        for (std::size_t k = 0; k < order.size(); ++k) {
            running = std::max(running, (m - static_cast<double>(k)) * p[order[k]]);
            out[order[k]] = std::min(1.0, running);
        }
    } else {
        // Step up: the k-th smallest (from 1) times m / k, never above a later one.
        double running = 1;
        for (std::size_t k = order.size(); k-- > 0;) {
            running = std::min(running, m / static_cast<double>(k + 1) * p[order[k]]);
            out[order[k]] = std::min(1.0, running);
        }
    }
    return out;
}

}  // namespace contest::stats
