#pragma once
// Shared checks of the certified sensitivity bounds (rf, marginal rf, drf): references in long
// double, and the bound tested against the map itself at random and adversarial perturbations.
#include <gtest/gtest.h>

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "model_cases.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens::testing {

using LongMatrix = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;

/// ‖B‖₂ by a one-sided Jacobi SVD in long double (64-bit significand): accurate to ~1e-18
/// relative, far below the rounding terms of the certified bounds, so "bound ≥ reference" is a
/// real test of their direction.
inline long double reference_norm(const Matrix& B) {
  const LongMatrix L = B.cast<long double>();
  return Eigen::JacobiSVD<LongMatrix>(L).singularValues()(0);
}

/// The top right-singular vector of B, scaled to the sphere ‖Δ‖ = √d: the perturbation that
/// moves the pre-activations most (equality in ‖BΔ‖ ≤ ‖B‖₂‖Δ‖).
inline Vector top_direction(const Matrix& B) {
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(B, Eigen::ComputeThinV);
  const Vector v = svd.matrixV().col(0);
  return v * std::sqrt(static_cast<double>(B.cols()));
}

/// ‖φ(X^i(Δ)) − φ(X)‖ from scratch.
inline double change_at(const FeatureMap& model, const Matrix& X, Index i, const Vector& delta) {
  Matrix moved = X;
  moved.row(i) += delta.transpose();
  return (model.features(moved) - model.features(X)).norm();
}

/// The bound U holds at `count` random perturbations (on the sphere and inside the ball) of
/// random words among `positions`, and at `adversarial` directions (one per entry, for the word
/// with the same index in `positions`). Returns the largest ratio change/U seen.
inline double check_bound_at_points(const FeatureMap& model, const Matrix& X, double U,
                                    std::span<const Index> positions, std::mt19937_64& gen,
                                    int count, std::span<const Vector> adversarial = {}) {
  double worst = 0.0;
  const Index d = X.cols();
  for (int t = 0; t < count; ++t) {
    const Index i = positions[gen() % positions.size()];
    const double change = change_at(model, X, i, ball_point(gen, d, t % 2 == 0));
    EXPECT_LE(change, U) << "random point " << t << ", word " << i;
    worst = std::max(worst, change / U);
  }
  for (std::size_t a = 0; a < adversarial.size(); ++a) {
    for (const double sign : {1.0, -1.0}) {
      const double change = change_at(model, X, positions[a], sign * adversarial[a]);
      EXPECT_LE(change, U) << "adversarial direction of word " << positions[a];
      worst = std::max(worst, change / U);
    }
  }
  return worst;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace wordsens::testing
