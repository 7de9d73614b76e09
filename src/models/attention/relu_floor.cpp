#include "models/attention/relu_floor.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace wordsens {
namespace {

/// Row `position` of the row-normalised ReLU attention of the scores (its output's weights).
Vector relu_row(const Matrix& scores, Index position) {
  Vector a = scores.row(position).transpose().cwiseMax(0.0);
  const double total = a.sum();
  if (total > 0.0) {
    a /= total;
  } else {
    a.setZero();
  }
  return a;
}

}  // namespace

Matrix relu_floor_gram(const Matrix& XWt) {
  Matrix gram(XWt.rows(), XWt.rows());
  gram.setZero();
  gram.selfadjointView<Eigen::Lower>().rankUpdate(XWt);
  return gram.selfadjointView<Eigen::Lower>();
}

std::vector<Vector> relu_floor_starts(const Matrix& X, const Matrix& XWt, const Matrix& gram,
                                      const Matrix& scores, Index position, int candidates) {
  const Index n = X.rows(), d = X.cols();
  if (n < 2 || n - 1 >= d || candidates <= 0) return {};
  std::vector<Index> others;
  others.reserve(static_cast<std::size_t>(n - 1));
  for (Index l = 0; l < n; ++l) {
    if (l != position) others.push_back(l);
  }
  const Matrix keys = XWt(others, Eigen::all);  // (n − 1) × d: row r is (W x_l)ᵀ
  const Eigen::LDLT<Matrix> solver(gram(others, others));
  if (solver.info() != Eigen::Success || !solver.isPositive()) return {};

  // The words farthest from row i's current output y_i: moving the row onto one of them changes
  // it most (‖x_l − y_i‖² = d − 2 x_l·y_i + ‖y_i‖², so the smallest x_l·y_i).
  const Vector y = X.transpose() * relu_row(scores, position);
  std::vector<Index> order(others.size());
  std::iota(order.begin(), order.end(), Index{0});
  const Vector overlap = X(others, Eigen::all) * y;
  std::stable_sort(order.begin(), order.end(),
                   [&](Index a, Index b) { return overlap(a) < overlap(b); });

  const Vector xi = X.row(position).transpose();
  // Q x_i, the part of x_i in the keys' span; the rest, P x_i, leaves every score unchanged.
  const Vector qxi = keys.transpose() * solver.solve(keys * xi);
  // The move may reach the sphere ‖Δ‖ = √d: ‖τ z − Q x_i‖² = d fixes τ (z lies in the keys'
  // span, so z·Q x_i = z·x_i).
  const double room = std::max(0.0, static_cast<double>(d) - qxi.squaredNorm());
  const double radius = std::sqrt(static_cast<double>(d));
  std::vector<Vector> starts;
  for (std::size_t c = 0; c < order.size() && static_cast<int>(starts.size()) < candidates; ++c) {
    const Index kept = order[c];
    Vector signs = Vector::Constant(n - 1, -1.0);
    signs(kept) = 1.0;
    // z: the least-norm solution of K z = signs. The new word x' = P x_i + τ z has scores τ·signs
    // (up to 1/√d) against the other words for every τ > 0, and Δ = x' − x_i = τ z − Q x_i; the
    // largest τ with ‖Δ‖ ≤ √d gives the widest margins.
    const Vector z = keys.transpose() * solver.solve(signs);
    const double zz = z.squaredNorm(), zx = z.dot(xi);
    if (!(zz > 0.0) || !std::isfinite(zz)) continue;
    const double tau = (zx + std::sqrt(zx * zx + zz * room)) / zz;
    Vector delta = tau * z - qxi;
    const double norm = delta.norm();
    if (norm > radius) delta *= radius / norm;  // rounding only: τ solves ‖Δ‖ = √d
    // Keep the start only if the sign pattern really holds (ill-conditioned keys near n = d).
    const Vector moved = keys * (xi + delta);
    bool holds = true;
    for (Index r = 0; r < n - 1 && holds; ++r) holds = (moved(r) > 0.0) == (r == kept);
    if (holds) starts.push_back(std::move(delta));
  }
  return starts;
}

}  // namespace wordsens
