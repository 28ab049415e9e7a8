#include "contest/report/multiple_comparisons.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "contest/sys/errors.h"

namespace contest::stats {

Correction parse_correction(const std::string& name) {
    if (name == "holm") return Correction::holm;
    if (name == "bh") return Correction::bh;
    if (name == "none") return Correction::none;
    throw UsageError("--correction '" + name + "': expected holm, bh or none");
}

const char* correction_name(Correction c) {
    switch (c) {
        case Correction::holm:
            return "holm";
        case Correction::bh:
            return "bh";
        case Correction::none:
            return "none";
    }
    return "?";
}

const char* correction_description(Correction c) {
    switch (c) {
        case Correction::holm:
            return "Holm (family-wise error)";
        case Correction::bh:
            return "Benjamini-Hochberg (false discovery rate)";
        case Correction::none:
            return "none (each test alone)";
    }
    return "?";
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
