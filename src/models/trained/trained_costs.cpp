#include "models/trained/trained_costs.hpp"

#include <algorithm>
#include <cmath>

namespace wordsens {
namespace {

constexpr double kHeadWidth = 32.0;   // all-MiniLM-L6-v2's d/H
constexpr double kWidthFactor = 4.0;  // its feed-forward's width, 4d

double heads(const CostShape& s) { return std::max(1.0, s.d / kHeadWidth); }

// The attention's and the whole layer's shares of the dense rate, kAttentionShareOfDense and
// kLayerShareOfDense, are rows of models/calibration.tsv (docs/PERFORMANCE.md, "The transformer
// family"): the attention's is lower than its benchmark's because the study's ascents climb 3
// points per call, each call reading B_j once for fewer points than the benchmark's 8.

// The attention's update per point, forward and backward (trained_attention_update.hpp): about
// 5·H·n·d over the rows j ≠ i, 6·n·d for row i and 10·d² for the moved word's rows and W_O, the
// points of a call together in matrix products.
double attention_update(const CostShape& s) {
  const double n = s.n, d = s.d;
  return 2.0 * (5.0 * heads(s) * n * d + 6.0 * n * d + 10.0 * d * d) /
         (kDenseSpeedup * kAttentionShareOfDense);
}

}  // namespace

double TrainedCosts::feed_forward(const CostShape& s) const {
  return part_ == TrainedPart::layer ? 2.0 * s.n * s.d * kWidthFactor * s.d : 0.0;
}

double TrainedCosts::plain_pass(const CostShape& s) const {
  const double n = s.n, d = s.d;
  return 3.0 * n * d * d + 2.0 * n * n * d + n * d * d + feed_forward(s);
}

// The feed-forward forward and backward (4·n·d·w multiply–adds) at the layer's share of the
// dense rate (with its LayerNorms and GELU), the attention as above.
double TrainedCosts::evaluation(const CostShape& s) const {
  return attention_update(s) + 2.0 * 2.0 * feed_forward(s) / (kDenseSpeedup * kLayerShareOfDense);
}

double TrainedCosts::features(const CostShape& s) const {
  return 2.0 * plain_pass(s) / kDenseSpeedup;
}

// The trained weights are read once (io); a twin draws 4d² + 2d·w normals per task.
double TrainedCosts::weights(const CostShape& s) const {
  const double d = s.d;
  return generation_cost() * (4.0 * d * d + 2.0 * d * kWidthFactor * d);
}

// The plain pass at Δ = 0 and the leave-one-out sums: the scores and ȳ (4·n²·d) and B (2·n·d²),
// dense.
double TrainedCosts::position_setup(const CostShape& s) const {
  const double n = s.n, d = s.d;
  return features(s) + 2.0 * (2.0 * n * n * d + n * d * d) / kDenseSpeedup;
}

double TrainedCosts::sample_setup(const CostShape& /*s*/) const { return 0.0; }

// The plain pass forward and backward, dense, the moved words' rows at the mix's rate.
double TrainedCosts::set_evaluation(const CostShape& s, double words) const {
  return 2.0 * 2.0 * plain_pass(s) / kDenseSpeedup + 2.0 * 6.0 * words * s.d * s.d;
}

double TrainedCosts::set_setup(const CostShape& s, const CostOptions& /*o*/,
                               double /*words*/) const {
  return features(s);
}

double TrainedCosts::single_point_evaluation(const CostShape& s) const { return evaluation(s); }

// As the attention models' joint ascents (attention/attention_costs.cpp).
double TrainedCosts::multi_word_growth(double words) const {
  return std::pow(std::max(1.0, words / 2.0), 0.6);
}

// The layer's matrices (4d² + 2d·w; a twin holds its own copy, the trained weights are shared by
// every task) with the attention's four packed again, in both orientations, for the evaluators'
// products (8d²: trained_attention_update.hpp), and one evaluator's pass and scratch
// (trained_pass.hpp): about 25 arrays of n × d (one the rows' b_O − M_j), 6 more of the
// position's Q, K and V packed, 4 of n × w and 3 of n × n per head. Not yet fitted to a measured
// peak (the other families' are: study/cost_model.cpp).
double TrainedCosts::ws_memory(const CostShape& s, const CostOptions& /*o*/,
                               const SearchShape& /*q*/) const {
  const double n = s.n, d = s.d, w = kWidthFactor * d;
  return 8.0 * (12.0 * d * d + 2.0 * d * w) +
         8.0 * (3.0 * heads(s) * n * n + 31.0 * n * d + 4.0 * n * w);
}

double TrainedCosts::gen_memory(const CostShape& s, const CostOptions& o, double N,
                                double p) const {
  return ModelCosts::gen_memory(s, o, N, p) + ws_memory(s, o, SearchShape{});
}

}  // namespace wordsens
