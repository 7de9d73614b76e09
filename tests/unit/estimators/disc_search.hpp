#pragma once
// Brute-force reference for d = 2: the best f_i(Δ) = ‖φ(X^i(Δ)) − φ(X)‖² over a dense polar
// grid of the disc ‖Δ‖ ≤ √2, refined around the best grid points by a shrinking local grid.
// It shares nothing with the estimator's optimiser, so it can catch missed maxima.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

#include "models/shared/feature_map.hpp"

namespace wordsens::testing {

struct DiscSearch {
  int radii = 40;          // grid circles, the last one on the boundary
  int angles = 480;        // points per circle
  int refine_top = 4;      // best grid points refined locally (11 × 11 local grid per round) …
  int refine_rounds = 25;  // … halving the local grid's span each round
};

/// max_Δ f_i(Δ) over the disc for one evaluator (d must be 2).
inline double disc_maximum(PositionEvaluator& evaluator, const DiscSearch& search = {}) {
  const Vector& phi = evaluator.base_features();
  const double radius = std::sqrt(2.0);
  Vector out(phi.size());
  Vector delta(2);
  const auto f = [&](double r, double theta) {
    delta << r * std::cos(theta), r * std::sin(theta);
    evaluator.features_at(delta, out);
    return (out - phi).squaredNorm();
  };
  // (value, r, θ) of every grid point; the centre is the Δ = 0 point (value 0).
  std::vector<std::pair<double, std::pair<double, double>>> grid;
  grid.reserve(static_cast<std::size_t>(search.radii * search.angles));
  const double dr = radius / search.radii;
  const double dtheta = 2.0 * std::numbers::pi / search.angles;
  for (int j = 1; j <= search.radii; ++j) {
    for (int l = 0; l < search.angles; ++l) {
      const double r = dr * j, theta = dtheta * l;
      grid.push_back({f(r, theta), {r, theta}});
    }
  }
  const auto top = std::min<std::size_t>(static_cast<std::size_t>(search.refine_top), grid.size());
  std::partial_sort(grid.begin(), grid.begin() + static_cast<std::ptrdiff_t>(top), grid.end(),
                    [](const auto& a, const auto& b) { return a.first > b.first; });
  double best = grid.front().first;
  for (std::size_t t = 0; t < top; ++t) {
    auto [value, point] = grid[t];
    auto [r0, theta0] = point;
    double step_r = dr, step_theta = dtheta;
    for (int round = 0; round < search.refine_rounds; ++round) {
      double best_r = r0, best_theta = theta0;
      for (int a = -5; a <= 5; ++a) {
        for (int b = -5; b <= 5; ++b) {
          const double r = std::clamp(r0 + step_r * a / 5.0, 0.0, radius);
          const double theta = theta0 + step_theta * b / 5.0;
          const double v = f(r, theta);
          if (v > value) {
            value = v;
            best_r = r;
            best_theta = theta;
          }
        }
      }
      r0 = best_r;
      theta0 = best_theta;
      step_r *= 0.5;
      step_theta *= 0.5;
    }
    best = std::max(best, value);
  }
  return best;
}

/// The brute-force S over all positions of X.
inline double disc_sensitivity(const FeatureMap& model, const Matrix& X,
                               const DiscSearch& search = {}) {
  double best = 0.0, phi_norm = 0.0;
  for (Index i = 0; i < X.rows(); ++i) {
    auto evaluator = model.at_position(X, i);
    phi_norm = evaluator->base_features().norm();
    best = std::max(best, disc_maximum(*evaluator, search));
  }
  return std::sqrt(best) / phi_norm;
}

}  // namespace wordsens::testing
