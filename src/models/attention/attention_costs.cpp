#include "models/attention/attention_costs.hpp"

#include <algorithm>
#include <cmath>

namespace wordsens {

// The batched objective's 8n·d + d² + 2n² multiply–adds per point, in matrix–matrix products
// (attention_batch.hpp).
double AttentionCosts::evaluation(const CostShape& s) const {
  const double n = s.n, d = s.d;
  return 2.0 * (8.0 * n * d + d * d + 2.0 * n * n) / kBatchedSpeedup;
}

double AttentionCosts::features(const CostShape& s) const {
  return 2.0 * (s.n * s.n * s.d + s.n * s.d * s.d);
}

double AttentionCosts::weights(const CostShape& s) const { return generation_cost() * s.d * s.d; }

// The leave-one-out sums T = E X (2·n²·d, dense) and φ once (4·(n·d + d²)).
double AttentionCosts::position_setup(const CostShape& s) const {
  const double n = s.n, d = s.d;
  return 2.0 * n * n * d / kDenseSpeedup + 4.0 * (n * d + d * d);
}

// The products shared by all positions, X W, X Wᵀ (4·n·d²) and the scores X W Xᵀ (2·n²·d),
// dense.
double AttentionCosts::sample_setup(const CostShape& s) const {
  const double n = s.n, d = s.d;
  return (4.0 * n * d * d + 2.0 * n * n * d) / kDenseSpeedup;
}

// The s changed rows and columns of the scores and every row's normalisation, in matrix–matrix
// products over the call's points (attention_word_set.cpp) at about half the dense rate
// (measured: `ws --model raf --n 250 --d 256 --words 4|16`, 15–25 Gflop/s in these terms).
double AttentionCosts::set_evaluation(const CostShape& s, double words) const {
  const double n = s.n, d = s.d;
  return 2.0 * (8.0 * n * d * words + 2.0 * d * d * words + 2.0 * n * n) / (kDenseSpeedup / 2.0);
}

// The unperturbed scores and features once, dense.
double AttentionCosts::set_setup(const CostShape& s, const CostOptions& /*o*/,
                                 double /*words*/) const {
  const double n = s.n, d = s.d;
  return 2.0 * (2.0 * n * n * d + 2.0 * n * d * d) / kDenseSpeedup;
}

// 8·n·d + 3·d² multiply–adds; the matrix–vector products read W (d × d) at every point: from
// the core's own cache while it fits there (kPerCoreCacheBytes), kCachedAttentionSpeedup times
// the mix's rate (models/calibration.tsv).
double AttentionCosts::single_point_evaluation(const CostShape& s) const {
  const double n = s.n, d = s.d;
  const double cached = 8.0 * d * d <= kPerCoreCacheBytes ? kCachedAttentionSpeedup : 1.0;
  return 2.0 * (8.0 * n * d + 3.0 * d * d) / cached;
}

// The joint ascents take longer as the set grows (measured with multiword.ini and `ws --words
// m`: raf 82, 129, 210, 240 evaluations per start at m = 2, 4, 8, 16, against 80 for one word).
double AttentionCosts::multi_word_growth(double words) const {
  return std::pow(std::max(1.0, words / 2.0), 0.6);
}

namespace {

/// One n × d by d × d product (Y P or C Pᵀ), one point at a time: about half the dense rate
/// (measured: `wordsens run` of ws raf_v at n = 30, d = 192, positions = all, 4 trials: 14.8 s
/// of CPU, next to another job, against 16 s priced).
double projection(const CostShape& s) { return 2.0 * s.n * s.d * s.d / (kDenseSpeedup / 2.0); }

}  // namespace

// raf's evaluator, one point at a time (the default batch), and the two projections.
double ValueAttentionCosts::evaluation(const CostShape& s) const {
  return attention_.single_point_evaluation(s) + 2.0 * projection(s);
}

double ValueAttentionCosts::features(const CostShape& s) const {
  return attention_.features(s) + projection(s);
}

// W, W_V and W_O generated, and P = W_V W_O formed once.
double ValueAttentionCosts::weights(const CostShape& s) const {
  return 3.0 * attention_.weights(s) + 2.0 * s.d * s.d * s.d / kDenseSpeedup;
}

double ValueAttentionCosts::position_setup(const CostShape& s) const {
  return attention_.position_setup(s) + projection(s);
}

double ValueAttentionCosts::sample_setup(const CostShape& s) const {
  return attention_.sample_setup(s);
}

// From scratch, dense: X'W, X'Wᵀ, the projections (4·n·d² in all, twice for the products with
// W and twice for P) and the n × n by n × d products (S, A X', Aᵀ C, C X'ᵀ, the two ∂S terms);
// the moves added to X' and their gradients' rows read out, at the mix's rate.
double ValueAttentionCosts::set_evaluation(const CostShape& s, double words) const {
  const double n = s.n, d = s.d;
  return 2.0 * (4.0 * n * d * d + 6.0 * n * n * d) / kDenseSpeedup + 2.0 * words * d;
}

double ValueAttentionCosts::set_setup(const CostShape& s, const CostOptions& o,
                                      double words) const {
  return attention_.set_setup(s, o, words) + projection(s);
}

double ValueAttentionCosts::single_point_evaluation(const CostShape& s) const {
  return evaluation(s);
}

double ValueAttentionCosts::multi_word_growth(double words) const {
  return attention_.multi_word_growth(words);
}

// The sample's shared products (its scores and X W, X Wᵀ: n² + 2·n·d), W, and the evaluators
// of the positions a round holds (grouped_positions), each with its leave-one-out sums and
// scores (d² + 3·n·d + n²). Measured peak resident memory less the process's: n = 250,
// d = 768, all positions: 160 MB; n = 1000, d = 64, 16 positions: 144 MB (135 priced).
double AttentionCosts::ws_memory(const CostShape& s, const CostOptions& /*o*/,
                                 const SearchShape& q) const {
  const double n = s.n, d = s.d;
  const double held = q.words > 1.0 ? 1.0 : grouped_positions(q);
  return 8.0 * (held * (d * d + 3.0 * n * d + n * n) + 5.0 * n * d + n * n + 2.0 * d * d);
}

// raf's for one position at a time (raf_v evaluates one point at a time: no rounds of
// positions), its attention weights kept for the projection (2·n²), and P = W_V W_O with its
// products. Measured: n = 1000, d = 64, 16 positions: 35 MB (39 priced).
double ValueAttentionCosts::ws_memory(const CostShape& s, const CostOptions& o,
                                      const SearchShape& q) const {
  const double n = s.n, d = s.d;
  return attention_.ws_memory(s, o, SearchShape{1.0, q.starts, q.words}) +
         8.0 * (2.0 * n * n + 3.0 * d * d + 4.0 * n * d);
}

}  // namespace wordsens
