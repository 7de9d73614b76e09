#pragma once
// The statistics of /summary (FORMAT.md "Summaries"): pure functions, so tests and the Python
// reader can recompute them.
#include <array>
#include <vector>

namespace wordsens::io {

/// mean, std (ddof = 1), sem = std/√m, median, q05, q95 over the finite values (m of them);
/// quantiles interpolate linearly between order statistics (numpy's default). NaN where
/// undefined (std and sem need m ≥ 2; everything needs m ≥ 1). Order as schema::col::kStatistics.
std::array<double, 6> summary_statistics(std::vector<double> values);

/// The q-quantile (0 ≤ q ≤ 1) of sorted values, numpy "linear" method.
double quantile_sorted(const std::vector<double>& sorted, double q);

}  // namespace wordsens::io
