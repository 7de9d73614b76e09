#include "models/bounds/spectral_certificate.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "models/bounds/lanczos.hpp"
#include "models/bounds/rounding.hpp"

namespace wordsens {
namespace {

// The first shift above the estimate, relative to the matrix's scale; grows ×8 per failure.
constexpr double kFirstRelativeGap = 1e-12;

/// max_j Σ_l |Ĝ_jl| ≥ λ_max(Ĝ) (Gershgorin), from the strictly upper copy and the saved diagonal
/// (the factorisations overwrite the diagonal), rounded up by 1 + 2γ_m for the sums of m terms.
double gershgorin_bound(const Eigen::MatrixXd& G_upper, const Vector& diagonal) {
  const Index m = G_upper.rows();
  double worst = 0.0;
  for (Index j = 0; j < m; ++j) {
    double sum = std::abs(diagonal(j));
    for (Index l = 0; l < m; ++l) {
      if (l != j) sum += std::abs(j < l ? G_upper(j, l) : G_upper(l, j));
    }
    worst = std::max(worst, sum);
  }
  return rounding::up(worst *
                      (1.0 + 2.0 * rounding::gamma(static_cast<double>(m), rounding::kUnitDouble)));
}

/// Ĝ's lower triangle copied into the strictly upper one (or, with negate, −Ĝ from the upper copy
/// into the strictly lower one). Explicit loops: the read and written triangles are disjoint, but
/// Eigen's debug builds would flag a matrix assigned from its own transpose.
void copy_lower_to_upper(Eigen::MatrixXd& G) {
  for (Index j = 0; j < G.cols(); ++j) {
    for (Index i = j + 1; i < G.rows(); ++i) G(j, i) = G(i, j);
  }
}
void negate_upper_into_lower(Eigen::MatrixXd& G) {
  for (Index j = 0; j < G.cols(); ++j) {
    for (Index i = j + 1; i < G.rows(); ++i) G(i, j) = -G(j, i);
  }
}

}  // namespace

LambdaMaxCertificate certify_lambda_max(Eigen::MatrixXd G, std::optional<double> estimate,
                                        int max_factorisations) {
  const Index m = G.rows();
  if (G.cols() != m) throw std::invalid_argument("certify_lambda_max: matrix is not square");
  LambdaMaxCertificate out;
  if (m == 0) return out;
  // The strictly upper triangle keeps Ĝ while the lower one is factorised in place.
  copy_lower_to_upper(G);
  if (!G.allFinite()) throw std::domain_error("certify_lambda_max: non-finite matrix entry");
  const Vector diagonal = G.diagonal();

  double residual = 0.0;
  if (!estimate) {
    const SymmetricOperator apply = [&G](const Vector& v, Vector& w) {
      w.noalias() = G.selfadjointView<Eigen::Upper>() * v;
    };
    LanczosOptions options;
    options.relative_tolerance = 1e-10;
    options.max_iterations = 200;
    const LanczosResult lanczos = lanczos_top_eigen(apply, m, Vector::Ones(m), options);
    estimate = lanczos.ritz_value;
    residual = std::max(lanczos.residual, 0.0);
  }
  out.estimate = *estimate;
  const double scale = std::max(
      {std::abs(*estimate), diagonal.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min()});
  double gap = residual + kFirstRelativeGap * scale;

  const double u = rounding::kUnitDouble;
  const double md = static_cast<double>(m);
  for (int attempt = 0; attempt < max_factorisations; ++attempt) {
    const double mu = *estimate + gap;
    gap *= 8.0;
    // A = fl(μI − Ĝ) in the lower triangle: off-diagonal −Ĝ_ij exactly, diagonal one rounding.
    negate_upper_into_lower(G);
    G.diagonal() = (mu - diagonal.array()).matrix();
    ++out.factorisations;
    const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> llt(G);
    if (llt.info() != Eigen::Success) continue;
    double r2 = 0.0, r_max = 0.0;
    bool finite = true;
    for (Index j = 0; j < m && finite; ++j) {
      for (Index i = j; i < m; ++i) {
        const double r = G(i, j);
        finite = finite && std::isfinite(r);
        r2 += r * r;
        r_max = std::max(r_max, std::abs(r));
      }
    }
    if (!finite || !std::isfinite(r2)) continue;
    const double pairs = md * (md + 1.0) / 2.0;
    const double r2_up = r2 * (1.0 + 2.0 * rounding::gamma(pairs, u));
    const double diagonal_error = u * (mu - diagonal.array()).abs().maxCoeff();
    const double underflow = md * md * (1.0 + r_max) * std::ldexp(1.0, -1070);
    out.shift = mu;
    out.upper =
        rounding::up(mu + rounding::gamma(md + 2.0, u) * r2_up + diagonal_error + underflow);
    return out;
  }
  // The fallback reads Ĝ from the untouched upper copy.
  out.gershgorin = true;
  out.upper = gershgorin_bound(G, diagonal);
  return out;
}

double norm_bound_from_double_gram(Eigen::MatrixXd G, Index rows, double frobenius2) {
  const Index cols = G.rows();
  if (cols == 0 || rows == 0) return 0.0;
  if (!std::isfinite(frobenius2)) {
    throw std::domain_error("norm_bound_from_double_gram: non-finite Frobenius norm");
  }
  const double u = rounding::kUnitDouble;
  const double rd = static_cast<double>(rows), cd = static_cast<double>(cols);
  const double frobenius2_up = frobenius2 * (1.0 + 2.0 * rounding::gamma(rd * cd, u));
  const double gram_error =
      rounding::gamma(rd, u) * frobenius2_up + cd * rd * rounding::kUnderflowDouble;
  const double lambda_up = certify_lambda_max(std::move(G)).upper + gram_error;
  return rounding::up(std::sqrt(std::max(lambda_up, 0.0)));
}

double certified_norm(const Matrix& B) {
  // ‖B‖₂ = ‖Bᵀ‖₂: use the smaller Gram matrix (its entries are sums over the other dimension).
  const bool tall = B.rows() >= B.cols();
  const Index m = tall ? B.cols() : B.rows();
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(m, m);
  if (tall) {
    G.selfadjointView<Eigen::Lower>().rankUpdate(B.transpose());
  } else {
    G.selfadjointView<Eigen::Lower>().rankUpdate(B);
  }
  return norm_bound_from_double_gram(std::move(G), tall ? B.rows() : B.cols(), B.squaredNorm());
}

}  // namespace wordsens
