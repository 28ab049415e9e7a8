#pragma once
// The statistics of one probe window, report side: exact count, mean, sample
// standard deviation, min and max (from the probe's integer sums), and the
// distribution as a Boost.Histogram whose variable axis has exactly the
// probe's bucket edges (latency_buckets.h).
//
// Percentiles are nearest rank over all samples, idx = ceil(p/100 * N) - 1,
// read from the histogram: the value given is the lower edge of the bucket
// that holds the idx-th sample, clamped to [min, max]. So they are exact to
// the histogram's resolution (at most 1 us low below 100 ms, 1 ms low from
// there to 10 s); rank 1 is the exact min and rank N (p = 100) the exact
// max. The mode is the most populated 1 us bucket (the lowest on a tie),
// given the same way; only when no sample is below 100 ms is it a 1 ms one.
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include <boost/histogram.hpp>
#include <nlohmann/json.hpp>

#include "contest/latency/window_counts.h"

namespace contest::latency {

// The percentiles every report shows (stress-ng's cyclic set).
inline constexpr double kReportedPercentiles[] = {25, 50, 75, 90, 95.40, 99, 99.5, 99.9, 99.99};

using LatencyAxis = boost::histogram::axis::variable<double, boost::use_default,
                                                     boost::histogram::axis::option::overflow_t>;
using LatencyHistogram =
    boost::histogram::histogram<std::tuple<LatencyAxis>,
                                boost::histogram::dense_storage<std::uint64_t>>;

// The axis of the probe's buckets: edges 0, 1 us, ..., 100 ms, 101 ms, ...,
// 10 s; the overflow bin is the probe's last bucket.
LatencyAxis latency_axis();

// One row of a printed distribution: the samples in [lower_ns, lower_ns +
// width), or, for the last row when `and_above`, in [lower_ns, inf).
struct DistributionRow {
    std::int64_t lower_ns = 0;
    std::uint64_t count = 0;
    bool and_above = false;
};

class LatencyStats {
  public:
    LatencyStats();  // no samples
    explicit LatencyStats(const WindowCounts& counts);

    std::uint64_t samples() const { return samples_; }
    std::optional<double> mean_ns() const;        // none without samples
    std::optional<double> sd_ns() const;          // sample (n - 1); none below 2 samples
    std::optional<std::int64_t> min_ns() const;   // exact
    std::optional<std::int64_t> max_ns() const;   // exact
    std::optional<std::int64_t> mode_ns() const;  // see above
    // p in (0, 100], in steps of 0.01; throws std::invalid_argument otherwise.
    std::optional<std::int64_t> percentile_ns(double p) const;

    std::uint64_t periods() const { return periods_; }
    std::uint64_t missed() const { return missed_; }
    std::uint64_t skipped() const { return skipped_; }
    std::uint64_t work_done() const { return work_done_; }
    std::uint64_t work_wanted() const { return work_wanted_; }

    // Audio and video: frames done in the window and the time between them.
    std::uint64_t frames() const { return frames_; }
    std::optional<double> frame_mean_ns() const;
    // Nearest rank, the lower edge of its 0.1 ms bucket.
    std::optional<std::int64_t> frame_percentile_ns(double p) const;
    // The rate of the slowest 1% of frames: frames per second over the mean
    // interval of the slowest ceil(1% of frames), each read at its bucket's
    // middle (the "1% low" gaming schedulers' authors post).
    std::optional<double> one_pct_low_fps() const;

    const LatencyHistogram& histogram() const { return histogram_; }
    // The samples in buckets of width_ns (a multiple of 1 us), from the
    // bucket of the smallest sample, at most max_rows rows; the last row
    // takes every sample above when there are more. Above 100 ms the 1 ms
    // buckets count in the row of their lower edge.
    std::vector<DistributionRow> distribution(std::int64_t width_ns, std::size_t max_rows) const;

    // The figures, the percentiles and the non-empty buckets ([lower_ns,
    // count] pairs): what a result file keeps.
    nlohmann::json to_json() const;

  private:
    std::uint64_t frames_ = 0;
    std::int64_t frame_sum_ns_ = 0;
    std::vector<std::pair<std::size_t, std::uint64_t>> frame_bins_;  // non-empty, ascending
    std::uint64_t samples_ = 0;
    std::int64_t sum_ns_ = 0;
    unsigned __int128 sum_sq_ns2_ = 0;
    std::int64_t min_ns_ = 0, max_ns_ = 0;
    std::uint64_t periods_ = 0, missed_ = 0, skipped_ = 0, work_done_ = 0, work_wanted_ = 0;
    LatencyHistogram histogram_;
};

}  // namespace contest::latency
