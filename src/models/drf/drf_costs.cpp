#include "models/drf/drf_costs.hpp"

#include <algorithm>

namespace wordsens {

double DrfCosts::evaluation(const CostShape& s) const {
  const double weights = s.k * s.d + (s.L - 1.0) * s.k * s.k;
  return 4.0 * weights /
         (8.0 * weights <= kDrfCacheBytes ? kCachedDrfSpeedup : kRowBlockDrfSpeedup);
}

double DrfCosts::features(const CostShape& s) const {
  return 2.0 * (s.k * s.n * s.d + (s.L - 1.0) * s.k * s.k);
}

double DrfCosts::weights(const CostShape& s) const {
  return generation_cost() * (s.k * s.n * s.d + (s.L - 1.0) * s.k * s.k);
}

// The word's first-layer column block generated (and its product).
double DrfCosts::position_setup(const CostShape& s) const {
  return (generation_cost() + 2.0) * s.k * s.d;
}

double DrfCosts::sample_setup(const CostShape& /*s*/) const { return 0.0; }

// The first layer moved by Σ_j B_j δ_j, then the deeper layers, and back.
double DrfCosts::set_evaluation(const CostShape& s, double words) const {
  return 4.0 * (s.k * s.d * words + (s.L - 1.0) * s.k * s.k);
}

// The set's column blocks drawn and, for the guided start, each block's spectrum (k·d², dense).
double DrfCosts::set_setup(const CostShape& s, const CostOptions& o, double words) const {
  const double k = s.k, d = s.d;
  const double guided = o.guided_start ? words * k * d * d / kDenseSpeedup : 0.0;
  return (generation_cost() + 2.0) * k * d * words + guided;
}

// The first layer's block forward and back, and the deeper layers.
double DrfCosts::single_point_evaluation(const CostShape& s) const {
  return 4.0 * (s.k * s.d + (s.L - 1.0) * s.k * s.k);
}

double DrfCosts::multi_word_growth(double /*words*/) const { return 1.0; }

// Every layer, held for the whole task (the first k × n·d, L − 1 of k × k), and one more of the
// largest while they are drawn. Measured peak resident memory less the process's: n = 20,
// d = 128, k = D, L = 4: 260 MB (262 priced); n = 10, d = 192, k = D, L = 8: 235 MB (265).
double DrfCosts::ws_memory(const CostShape& s, const CostOptions& /*o*/,
                           const SearchShape& /*q*/) const {
  const double D = s.n * s.d;
  return 8.0 * (s.k * D + (s.L - 1.0) * s.k * s.k + s.k * std::max(D, s.k));
}

// The layers, and the N + 1 texts' features and their copy (M × k each).
double DrfCosts::gen_memory(const CostShape& s, const CostOptions& o, double N,
                            double /*p*/) const {
  return ws_memory(s, o, SearchShape{}) + 8.0 * 2.0 * (N + 1.0) * s.k;
}

}  // namespace wordsens
