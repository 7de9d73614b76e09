#include "models/transformer/transformer_costs.hpp"

#include <algorithm>
#include <cmath>

namespace wordsens {
namespace {

// The products run on matrices of n rows, one point at a time: about half the dense rate (as
// raf_v's projection, attention_costs.cpp).
double at_half_dense(double multiply_adds) { return 2.0 * multiply_adds / (kDenseSpeedup / 2.0); }

}  // namespace

double TransformerCosts::dense_pass(const CostShape& s) const {
  const double n = s.n, d = s.d, k = parts_.mlp ? s.k : 0.0;
  double madds = 2.0 * n * n * d;              // scores and A V, over all heads
  if (parts_.projections) madds += n * d * d;  // Y O
  madds += 2.0 * n * d * k;                    // LN(H1) W1 and ϕ(·) W2
  return madds;
}

double TransformerCosts::input_row(const CostShape& s) const {
  const double d = s.d;
  return (parts_.keys ? 2.0 : 1.0) * d * d + (parts_.projections ? d * d : 0.0);
}

// Forward: the moved row's inputs and the dense pass; backward: the dense pass again with ∂A
// (n²·d), and the moved row's ∂QU, ∂KU, ∂VU and their products with Qᵀ, Kᵀ, Vᵀ.
double TransformerCosts::evaluation(const CostShape& s) const {
  return at_half_dense(2.0 * dense_pass(s) + 2.0 * input_row(s) + 3.0 * s.n * s.d);
}

double TransformerCosts::features(const CostShape& s) const {
  return at_half_dense(dense_pass(s) + s.n * input_row(s));
}

double TransformerCosts::weights(const CostShape& s) const {
  const double d = s.d, k = parts_.mlp ? s.k : 0.0;
  const double matrices = (parts_.keys ? 2.0 : 1.0) + (parts_.projections ? 2.0 : 0.0);
  return generation_cost() * (matrices * d * d + 2.0 * d * k);
}

double TransformerCosts::position_setup(const CostShape& s) const { return features(s); }

double TransformerCosts::sample_setup(const CostShape& /*s*/) const { return 0.0; }

double TransformerCosts::set_evaluation(const CostShape& s, double words) const {
  return evaluation(s) + at_half_dense(2.0 * (words - 1.0) * (input_row(s) + 3.0 * s.n * s.d));
}

double TransformerCosts::set_setup(const CostShape& s, const CostOptions& /*o*/,
                                   double /*words*/) const {
  return features(s);
}

double TransformerCosts::single_point_evaluation(const CostShape& s) const { return evaluation(s); }

// As raf's joint ascents (attention_costs.cpp).
double TransformerCosts::multi_word_growth(double words) const {
  return std::pow(std::max(1.0, words / 2.0), 0.6);
}

// The weights (Q, K or W; V, O; the MLP's W1, W2: d × k each), and one point's forward pass kept
// for its backward one: the scores and weights of every head (H·n² each), the rows of the
// attention and of the MLP (n·d several times, n·k twice). Measured peak resident memory less
// the process's: mhraf, n = 500, d = 64, H = 4: 26 MB (28 priced).
double TransformerCosts::ws_memory(const CostShape& s, const CostOptions& /*o*/,
                                   const SearchShape& /*q*/) const {
  const double n = s.n, d = s.d, k = parts_.mlp ? s.k : 0.0;
  const double matrices = (parts_.keys ? 2.0 : 1.0) + (parts_.projections ? 2.0 : 0.0);
  return 8.0 * (matrices * d * d + 2.0 * d * k) +
         8.0 * (3.0 * s.H * n * n + 16.0 * n * d + 4.0 * n * k);
}

double TransformerCosts::gen_memory(const CostShape& s, const CostOptions& o, double N,
                                    double p) const {
  return ModelCosts::gen_memory(s, o, N, p) + ws_memory(s, o, SearchShape{});
}

}  // namespace wordsens
