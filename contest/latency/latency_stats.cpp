#include "contest/latency/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "contest/sys/number_text.h"

namespace contest::latency {

namespace bh = boost::histogram;

LatencyAxis latency_axis() {
    std::vector<double> edges;
    edges.reserve(kBuckets);
    // The last bucket is the axis's overflow bin: its lower edge is the
    // axis's upper end.
    for (std::size_t i = 0; i < kBuckets; ++i)
        edges.push_back(static_cast<double>(bucket_lower(i)));
    return LatencyAxis(edges);
}

namespace {

LatencyHistogram empty_histogram() {
    return bh::make_histogram_with(bh::dense_storage<std::uint64_t>(), latency_axis());
}

std::int64_t lower_edge(const LatencyHistogram& h, int index) {
    return static_cast<std::int64_t>(h.axis().value(index));
}

}  // namespace

LatencyStats::LatencyStats() : histogram_(empty_histogram()) {}

LatencyStats::LatencyStats(const WindowCounts& c)
    : samples_(c.samples),
      sum_ns_(c.sum_ns),
      sum_sq_ns2_(c.sum_sq_ns2),
      min_ns_(c.samples ? c.min_ns : 0),
      max_ns_(c.samples ? c.max_ns : 0),
      periods_(c.periods),
      missed_(c.missed),
      skipped_(c.skipped),
      work_done_(c.work_done),
      work_wanted_(c.work_wanted),
      histogram_(empty_histogram()) {
    frames_ = c.frames;
    frame_sum_ns_ = c.frame_sum_ns;
    for (std::size_t i = 0; i < kFrameBuckets; ++i)
        if (c.frame_buckets[i] != 0) frame_bins_.emplace_back(i, c.frame_buckets[i]);
    // Placed by value, so the Boost axis (not the probe's arithmetic) decides
    // the bin; a test checks the two agree.
    for (std::size_t i = 0; i < kBuckets; ++i)
        if (c.buckets[i] != 0)
            histogram_(static_cast<double>(bucket_lower(i)), bh::weight(c.buckets[i]));
}

std::optional<double> LatencyStats::frame_mean_ns() const {
    if (frames_ == 0) return std::nullopt;
    return static_cast<double>(frame_sum_ns_) / static_cast<double>(frames_);
}

namespace {

// Where a frame interval of bucket i is read: its middle (the last bucket,
// open above, at its lower edge).
double frame_bucket_middle(std::size_t i) {
    const double lower = static_cast<double>(i) * static_cast<double>(kFrameBucketNs);
    return i + 1 >= kFrameBuckets ? lower : lower + static_cast<double>(kFrameBucketNs) / 2;
}

}  // namespace

std::optional<std::int64_t> LatencyStats::frame_percentile_ns(double p) const {
    if (frames_ == 0 || !(p > 0 && p <= 100)) return std::nullopt;
    const auto rank = static_cast<std::uint64_t>(
        std::max(1.0, std::ceil(p / 100 * static_cast<double>(frames_))));
    std::uint64_t seen = 0;
    for (const auto& [i, count] : frame_bins_) {
        seen += count;
        if (seen >= rank) return static_cast<std::int64_t>(i) * kFrameBucketNs;
    }
    return static_cast<std::int64_t>(frame_bins_.back().first) * kFrameBucketNs;
}

std::optional<double> LatencyStats::one_pct_low_fps() const {
    if (frames_ == 0) return std::nullopt;
    const auto slowest = static_cast<std::uint64_t>(std::ceil(static_cast<double>(frames_) / 100));
    std::uint64_t taken = 0;
    double sum_ns = 0;
    for (auto it = frame_bins_.rbegin(); it != frame_bins_.rend() && taken < slowest; ++it) {
        const std::uint64_t n = std::min(it->second, slowest - taken);
        sum_ns += static_cast<double>(n) * frame_bucket_middle(it->first);
        taken += n;
    }
    if (!(sum_ns > 0)) return std::nullopt;
    return 1e9 * static_cast<double>(taken) / sum_ns;
}

std::optional<double> LatencyStats::mean_ns() const {
    if (samples_ == 0) return std::nullopt;
    return static_cast<double>(sum_ns_) / static_cast<double>(samples_);
}

std::optional<double> LatencyStats::sd_ns() const {
    if (samples_ < 2) return std::nullopt;
    // n * sum(x^2) - (sum x)^2 is exact in 128-bit integers: var = that / (n (n - 1)).
    auto n = static_cast<unsigned __int128>(samples_);
    auto magnitude = static_cast<unsigned __int128>(sum_ns_ < 0 ? -sum_ns_ : sum_ns_);
    unsigned __int128 numerator = n * sum_sq_ns2_ - magnitude * magnitude;
    long double var = static_cast<long double>(numerator) /
                      (static_cast<long double>(samples_) * static_cast<long double>(samples_ - 1));
    return static_cast<double>(std::sqrt(var));
}

std::optional<std::int64_t> LatencyStats::min_ns() const {
    if (samples_ == 0) return std::nullopt;
    return min_ns_;
}

std::optional<std::int64_t> LatencyStats::max_ns() const {
    if (samples_ == 0) return std::nullopt;
    return max_ns_;
}

std::optional<std::int64_t> LatencyStats::mode_ns() const {
    if (samples_ == 0) return std::nullopt;
    int best = -1;
    std::uint64_t best_count = 0;
    bool best_fine = false;
    for (auto&& bin : bh::indexed(histogram_, bh::coverage::all)) {
        std::uint64_t count = *bin;
        if (count == 0) continue;
        bool fine = is_fine_bucket(static_cast<std::size_t>(bin.index()));
        // A 1 us bucket always beats a 1 ms one: they are not comparable.
        if (best < 0 || (fine && !best_fine) || (fine == best_fine && count > best_count)) {
            best = bin.index();
            best_count = count;
            best_fine = fine;
        }
    }
    return std::clamp(lower_edge(histogram_, best), min_ns_, max_ns_);
}

std::optional<std::int64_t> LatencyStats::percentile_ns(double p) const {
    long long hundredths = std::llround(p * 100);
    if (!(p > 0 && p <= 100) || std::fabs(static_cast<double>(hundredths) - p * 100) > 1e-6)
        throw std::invalid_argument("percentile " + std::to_string(p) +
                                    ": must be in (0, 100] in steps of 0.01");
    if (samples_ == 0) return std::nullopt;
    // rank = ceil(p/100 * N), in integers: 95.40 * N / 100 in floating point
    // lands a hair above a whole number and would round up a rank too far.
    auto n = static_cast<unsigned __int128>(samples_);
    auto scaled = static_cast<unsigned __int128>(hundredths) * n;
    auto rank = static_cast<std::uint64_t>((scaled + 9999) / 10000);
    if (rank <= 1) return min_ns_;
    if (rank >= samples_) return max_ns_;
    std::uint64_t seen = 0;
    for (auto&& bin : bh::indexed(histogram_, bh::coverage::all)) {
        seen += *bin;
        if (seen >= rank) return std::clamp(lower_edge(histogram_, bin.index()), min_ns_, max_ns_);
    }
    return max_ns_;  // not reached: the buckets hold every sample
}

std::vector<DistributionRow> LatencyStats::distribution(std::int64_t width_ns,
                                                        std::size_t max_rows) const {
    if (width_ns <= 0 || width_ns % kFineWidthNs != 0)
        throw std::invalid_argument("distribution width must be a positive multiple of 1000 ns");
    std::vector<DistributionRow> rows;
    if (samples_ == 0 || max_rows == 0) return rows;
    std::int64_t first = std::max<std::int64_t>(0, min_ns_) / width_ns * width_ns;
    std::int64_t last = max_ns_ / width_ns * width_ns;
    auto wanted = static_cast<std::size_t>((last - first) / width_ns + 1);
    bool spill = wanted > max_rows;
    std::size_t n = spill ? max_rows - 1 : wanted;
    // The rows as their own Boost histogram: a regular axis of n bins of the
    // width, whose overflow bin is the "and above" row.
    auto rows_h = bh::make_histogram_with(
        bh::dense_storage<std::uint64_t>(),
        bh::axis::regular<double, bh::use_default, bh::use_default, bh::axis::option::overflow_t>(
            static_cast<unsigned>(n), static_cast<double>(first),
            static_cast<double>(first + static_cast<std::int64_t>(n) * width_ns)));
    for (auto&& bin : bh::indexed(histogram_, bh::coverage::all))
        if (*bin != 0)
            rows_h(static_cast<double>(lower_edge(histogram_, bin.index())), bh::weight(*bin));
    for (auto&& bin : bh::indexed(rows_h, bh::coverage::all)) {
        bool overflow = bin.index() == static_cast<int>(n);
        if (overflow && !spill) continue;
        rows.push_back({first + static_cast<std::int64_t>(bin.index()) * width_ns, *bin, overflow});
    }
    return rows;
}

nlohmann::json LatencyStats::to_json() const {
    auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json percentiles = nlohmann::json::object();
    for (double p : kReportedPercentiles) percentiles[fixed(p, 2)] = opt(percentile_ns(p));
    nlohmann::json bins = nlohmann::json::array();
    for (auto&& bin : bh::indexed(histogram_, bh::coverage::all))
        if (*bin != 0) bins.push_back({lower_edge(histogram_, bin.index()), *bin});
    return {{"samples", samples_},
            {"mean_ns", opt(mean_ns())},
            {"mode_ns", opt(mode_ns())},
            {"min_ns", opt(min_ns())},
            {"max_ns", opt(max_ns())},
            {"sd_ns", opt(sd_ns())},
            {"percentiles_ns", percentiles},
            {"periods", periods_},
            {"missed", missed_},
            {"skipped", skipped_},
            {"histogram",
             {{"bucket_ns", {{"below_100ms", kFineWidthNs}, {"below_10s", kCoarseWidthNs}}},
              {"bins", bins}}}};
}

}  // namespace contest::latency
