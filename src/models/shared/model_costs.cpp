#include "models/shared/model_costs.hpp"

#include <algorithm>
#include <cmath>

#include "core/cpu_features.hpp"

namespace wordsens {

namespace {
bool g_pinned = false;
CostHost g_pinned_host;
}  // namespace

CostHost cost_host() { return g_pinned ? g_pinned_host : CostHost{cpu_has_avx512f()}; }

PricedAs::PricedAs(CostHost host) {
  g_pinned = true;
  g_pinned_host = host;
}

PricedAs::~PricedAs() { g_pinned = false; }

double generation_cost() { return cost_host().avx512 ? kGenerationCostAvx512 : kGenerationCost; }

double grouped_positions(const SearchShape& q) {
  return std::min(q.positions, std::max(1.0, std::ceil(64.0 / std::max(q.starts, 1.0))));
}

double ModelCosts::gen_memory(const CostShape& /*s*/, const CostOptions& /*o*/, double N,
                              double p) const {
  const double M = N + 1.0;
  return 8.0 * (2.1 * M * p + 4.0 * M * M);
}

double ModelCosts::gen_point_evaluation(const CostShape& s) const {
  return single_point_evaluation(s);
}

// The weights once, then φ three times (the certification's φ(X) and φ(X^M(Δ*))), dense.
double ModelCosts::multi_word_outside_search(const CostShape& s) const {
  return weights(s) + 3.0 * features(s) / kDenseSpeedup;
}

double ModelCosts::ws_outside_search(const CostShape& s, const CostOptions& /*o*/,
                                     double /*positions*/) const {
  return weights(s) + features(s);
}

// The weights once; the N + 1 texts' features (Φ built once), Gram and head: dense matrix
// products, which run kDenseSpeedup times faster than the estimator's memory-bound matrix–vector
// mix, at the share kGenDenseShare of that rate.
double ModelCosts::gen_outside_search(const CostShape& s, const CostOptions& /*o*/, double N,
                                      double p, double /*positions*/) const {
  return weights(s) +
         ((N + 1.0) * features(s) + N * N * p + N * N * N / 3.0) / (kGenDenseShare * kDenseSpeedup);
}

}  // namespace wordsens
