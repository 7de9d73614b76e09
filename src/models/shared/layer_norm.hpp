#pragma once
// A row's LayerNorm without gain and bias, u = (x − mean x)/√(var x + ε) (biased variance), and
// its backward pass: the transformer family's block (ε = 1e-5) and the trained encoder layers
// (the encoder's ε, with their gains and biases applied around it).
#include <cmath>

#include "core/types.hpp"

namespace wordsens {

/// u ← LN(x), returning 1/√(var x + ε).
inline double layer_norm_row(const Eigen::Ref<const RowVector>& x, Eigen::Ref<RowVector> u,
                             double epsilon) {
  const double mean = x.mean();
  u = x.array() - mean;
  const double variance = u.squaredNorm() / static_cast<double>(x.size());
  const double scale = 1.0 / std::sqrt(variance + epsilon);
  u *= scale;
  return scale;
}

/// ∂x from ∂u through u = LN(x): scale · (∂u − mean(∂u) − u · mean(∂u ⊙ u)), exact with ε (u and
/// scale as layer_norm_row returned them).
inline RowVector layer_norm_row_backward(const Eigen::Ref<const RowVector>& u, double scale,
                                         const Eigen::Ref<const RowVector>& du) {
  const double count = static_cast<double>(u.size());
  const double mean_du = du.sum() / count;
  const double mean_du_u = du.dot(u) / count;
  return scale * (du.array() - mean_du - u.array() * mean_du_u).matrix();
}

}  // namespace wordsens
