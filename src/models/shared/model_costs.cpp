#include "models/shared/model_costs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "core/cpu_features.hpp"
#include "core/errors.hpp"

namespace wordsens {

namespace {
bool g_pinned = false;
CostHost g_pinned_host;
}  // namespace

// $WORDSENS_COST_HOST (avx2 or avx512) prices as on that CPU instead of this one (a PricedAs
// still wins; anything else is an InputError): the docs quote the cost model of one host, and
// their check (tests/docs/check_doc_numbers.py) must read the same numbers on any machine.
CostHost environment_host() {
  const char* named = std::getenv("WORDSENS_COST_HOST");
  if (named == nullptr || *named == '\0') return CostHost{cpu_has_avx512f()};
  const std::string host(named);
  if (host != "avx2" && host != "avx512") {
    throw InputError("WORDSENS_COST_HOST = '" + host + "': expected avx2 or avx512");
  }
  return CostHost{host == "avx512"};
}

CostHost cost_host() { return g_pinned ? g_pinned_host : environment_host(); }

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
