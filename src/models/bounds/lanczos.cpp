#include "models/bounds/lanczos.hpp"

#include "core/symmetric_eigen.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace wordsens {
namespace {

/// A unit vector orthogonal to the columns of Q (which span fewer than Q.rows() dimensions):
/// the coordinate vector with the largest component outside span(Q), orthogonalised. Used to
/// restart after an invariant subspace was found; deterministic.
Vector orthogonal_restart(const Eigen::MatrixXd& Q) {
  const Index dim = Q.rows();
  Vector best;
  double best_norm = -1.0;
  for (Index c = 0; c < dim; ++c) {
    Vector e = Vector::Unit(dim, c);
    for (int pass = 0; pass < 2; ++pass) e -= Q * (Q.transpose() * e);
    const double norm = e.norm();
    if (norm > best_norm) {
      best_norm = norm;
      best = e;
    }
    if (best_norm > 0.5) break;  // good enough, and keeps the restart cheap
  }
  return best / best_norm;
}

}  // namespace

LanczosResult lanczos_top_eigen(const SymmetricOperator& apply, Index dim, const Vector& start,
                                const LanczosOptions& options) {
  if (dim < 1 || start.size() != dim) {
    throw std::invalid_argument("lanczos_top_eigen: start vector size does not match dimension");
  }
  const Index m_max = std::min(dim, std::max<Index>(1, options.max_iterations));
  Eigen::MatrixXd Q(dim, m_max);  // Lanczos vectors as columns
  std::vector<double> alpha, beta;
  double dropped = 0.0;  // norms of breakdown vectors replaced by restarts (added to r)

  Vector q = start;
  const double start_norm = q.norm();
  if (!(start_norm > 0.0) || !std::isfinite(start_norm)) q = Vector::Unit(dim, 0);
  q.normalize();

  LanczosResult result;
  Vector w(dim), q_prev = Vector::Zero(dim);
  double beta_prev = 0.0, scale = 0.0;
  for (Index j = 0; j < m_max; ++j) {
    Q.col(j) = q;
    apply(q, w);
    const double a = q.dot(w);
    w -= a * q + beta_prev * q_prev;
    for (int pass = 0; pass < 2; ++pass)
      w -= Q.leftCols(j + 1) * (Q.leftCols(j + 1).transpose() * w);
    double b = w.norm();
    alpha.push_back(a);
    scale = std::max(scale, std::abs(a) + b + beta_prev);

    const bool exhausted = j + 1 == dim;
    const bool last = j + 1 == m_max;
    // An invariant subspace (never taken for convergence: the top eigenvector may lie outside
    // it): continue from a fresh orthogonal vector so that the Krylov space still grows to the
    // whole space; the tiny coupling b is dropped from T and added to r.
    const bool breakdown = !exhausted && b <= 1e-13 * scale;
    // The tridiagonal eigenproblem costs O(m²)–O(m³); check every step early, then every 4th.
    if (exhausted || last || j < 32 || j % 4 == 3) {
      Eigen::VectorXd diag = Eigen::Map<const Eigen::VectorXd>(alpha.data(), j + 1);
      Eigen::VectorXd sub = Eigen::Map<const Eigen::VectorXd>(beta.data(), j);
      const auto eig = tridiagonal_eigen(diag, sub);
      const double theta = eig.values(j);
      const auto s = eig.vectors.col(j);
      const double r = b * std::abs(s(j)) + dropped;
      if (exhausted || last || (!breakdown && r <= options.relative_tolerance * std::abs(theta))) {
        result.ritz_value = theta;
        result.residual = r;
        result.ritz_vector = Q.leftCols(j + 1) * s;
        result.ritz_vector.normalize();
        result.iterations = j + 1;
        result.exhausted = exhausted;
        return result;
      }
    }
    q_prev = q;
    if (breakdown) {
      dropped += b;
      q = orthogonal_restart(Q.leftCols(j + 1));
      b = 0.0;
    } else {
      q = w / b;
    }
    beta.push_back(b);
    beta_prev = b;
  }
  return result;  // not reached: the loop returns at j = m_max − 1
}

}  // namespace wordsens
