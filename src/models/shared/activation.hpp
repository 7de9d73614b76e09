#pragma once
// The pointwise nonlinearity ϕ of rf, drf and block's MLP (docs/METHOD.md §2) and its derivative.
// ReLU and tanh are 1-Lipschitz, which the rf upper bound relies on; GELU (block only) is not.
#include <cmath>

#include "core/types.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {

/// GELU(z) = z·Φ(z), Φ the standard normal distribution function (the exact form, not tanh's
/// approximation).
inline double gelu(double z) { return 0.5 * z * std::erfc(-z * 0.7071067811865476); }
/// GELU'(z) = Φ(z) + z·φ(z).
inline double gelu_derivative(double z) {
  return 0.5 * std::erfc(-z * 0.7071067811865476) + z * 0.3989422804014327 * std::exp(-0.5 * z * z);
}

/// out ← ϕ(z) entrywise.
inline void activate(Activation act, const Vector& z, Vector& out) {
  if (act == Activation::relu) {
    out = z.cwiseMax(0.0);
  } else if (act == Activation::gelu) {
    out = z.unaryExpr([](double v) { return gelu(v); });
  } else {
    out = z.array().tanh().matrix();
  }
}

/// Z ← ϕ(Z) entrywise, for a block of preactivations.
inline void activate_in_place(Activation act, Eigen::Ref<Matrix> Z) {
  if (act == Activation::relu) {
    Z = Z.cwiseMax(0.0);
  } else if (act == Activation::gelu) {
    Z = Z.unaryExpr([](double v) { return gelu(v); });
  } else {
    Z = Z.array().tanh().matrix();
  }
}

/// g ← g ⊙ ϕ'(z) entrywise. ReLU'(0) is taken as 0 (a subgradient; z = 0 exactly has
/// probability 0 for random weights).
inline void multiply_by_derivative(Activation act, const Vector& z, Vector& g) {
  if (act == Activation::relu) {
    g = (z.array() > 0.0).select(g, 0.0);
  } else if (act == Activation::gelu) {
    g.array() *= z.unaryExpr([](double v) { return gelu_derivative(v); }).array();
  } else {
    g.array() *= 1.0 - z.array().tanh().square();
  }
}

/// G ← G ⊙ ϕ'(Z) entrywise, for a block of points (one per column).
inline void multiply_by_derivative(Activation act, const Matrix& Z, Matrix& G) {
  if (act == Activation::relu) {
    G = (Z.array() > 0.0).select(G, 0.0);
  } else if (act == Activation::gelu) {
    G.array() *= Z.unaryExpr([](double v) { return gelu_derivative(v); }).array();
  } else {
    G.array() *= 1.0 - Z.array().tanh().square();
  }
}

}  // namespace wordsens
