#include "io/format/summary_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace wordsens::io {

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::array<double, 6> summary_statistics(std::vector<double> values) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  std::array<double, 6> result = {nan, nan, nan, nan, nan, nan};
  const std::size_t m = values.size();
  if (m == 0) return result;
  std::sort(values.begin(), values.end());
  // Sum in sorted order so that the result does not depend on the order rows arrived in.
  double sum = 0;
  for (double v : values) sum += v;
  const double mean = sum / static_cast<double>(m);
  result[0] = mean;
  if (m >= 2) {
    double squares = 0;
    for (double v : values) squares += (v - mean) * (v - mean);
    result[1] = std::sqrt(squares / static_cast<double>(m - 1));
    result[2] = result[1] / std::sqrt(static_cast<double>(m));
  }
  result[3] = quantile_sorted(values, 0.5);
  result[4] = quantile_sorted(values, 0.05);
  result[5] = quantile_sorted(values, 0.95);
  return result;
}

}  // namespace wordsens::io
