#pragma once
// Corrections for testing many hypotheses at once. Ten loads tested at
// alpha 0.05 each mark some load in about a third of comparisons where
// nothing differs; the adjusted p-values keep that chance at alpha over the
// whole family (Holm) or keep the expected share of false findings at alpha
// (Benjamini-Hochberg).
#include <span>
#include <string>
#include <vector>

namespace contest::stats {

enum class Correction { holm, bh, none };

// "holm", "bh", "none"; anything else is a UsageError naming --correction.
Correction parse_correction(const std::string& name);
const char* correction_name(Correction c);
// What a reader needs to know about it, e.g. "Holm (family-wise error)".
const char* correction_description(Correction c);
// Its name in a sentence: "Holm", "Benjamini-Hochberg", "no correction".
const char* correction_title(Correction c);

// Adjusted p-values, in the order given (what R's p.adjust computes).
// NaN entries are not tests: they stay NaN and do not count in the family.
std::vector<double> adjust_p_values(std::span<const double> p, Correction c);

}  // namespace contest::stats
