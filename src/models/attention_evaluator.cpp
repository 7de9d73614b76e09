// The per-position evaluator of raf / raf_relu (SPEC §3).
//
// Perturbing word i changes only row i and column i of the scores S' = X'WX'ᵀ/√d. For every other
// row j the evaluator keeps leave-one-out sums over l ≠ i, computed once per position in
// O(n²·d + n·d²):
//   softmax: m_j = max_{l≠i} S_jl, Z_j = Σ_{l≠i} e^{S_jl − m_j}, T_j = Σ_{l≠i} e^{S_jl − m_j} x_l;
//   relu:    R_j = Σ_{l≠i} ReLU(S_jl),             T_j = Σ_{l≠i} ReLU(S_jl) x_l.
// A call then needs the new column entries S'_ji = q_j·x'_i (q_j = x_jW/√d: O(n·d)), the new row
// i (W x'_i: O(d²), then O(n·d)), and an O(d) update of each y'_j: softmax rescales to the new
// maximum M = max(m_j, S'_ji) (all exponents ≤ 0, so scores in the hundreds or thousands stay
// finite); relu adds the new term. Total O(n·d + d²) per features_at and per pullback.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "models/attention.hpp"

namespace wordsens {
namespace {

class AttentionEvaluator final : public PositionEvaluator {
 public:
  AttentionEvaluator(const Matrix& X, const Matrix& W, AttentionKind kind, Index position)
      : kind_(kind), i_(position), n_(X.rows()), d_(X.cols()), X_(X), W_(W) {
    inv_sqrt_d_ = 1.0 / std::sqrt(static_cast<double>(d_));
    Q_ = X_ * W_ * inv_sqrt_d_;  // row j: q_j, so S_jl = q_j·x_l
    const Matrix S = Q_ * X_.transpose();
    // Leave-one-out weights E_jl (l ≠ i), E_ji = 0, row i unused.
    Matrix E = Matrix::Zero(n_, n_);
    loo_max_ = Vector::Zero(n_);
    loo_sum_ = Vector::Zero(n_);
    for (Index j = 0; j < n_; ++j) {
      if (j == i_ || n_ == 1) continue;
      if (kind_ == AttentionKind::softmax) {
        double m = -std::numeric_limits<double>::infinity();
        for (Index l = 0; l < n_; ++l)
          if (l != i_) m = std::max(m, S(j, l));
        for (Index l = 0; l < n_; ++l)
          if (l != i_) E(j, l) = std::exp(S(j, l) - m);
        loo_max_(j) = m;
      } else {
        for (Index l = 0; l < n_; ++l)
          if (l != i_) E(j, l) = std::max(S(j, l), 0.0);
      }
      loo_sum_(j) = E.row(j).sum();
    }
    T_ = E * X_;
    Xp_ = X_;
    col_scores_.resize(n_);
    col_weight_.resize(n_);
    col_inv_norm_.resize(n_);
    Yp_.resize(n_, d_);
    evaluate(Vector::Zero(d_));
    base_ = vec(Yp_);
  }

  [[nodiscard]] Index position() const override { return i_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  void features_at(const Vector& delta, Vector& out) override {
    if (delta.size() != d_) throw std::invalid_argument("raf evaluator: Δ has the wrong size");
    evaluate(delta);
    out = vec(Yp_);
  }

  void pullback(const Vector& cotangent, Vector& grad) override {
    if (cotangent.size() != n_ * d_) {
      throw std::invalid_argument("raf evaluator: cotangent has the wrong size");
    }
    const Eigen::Map<const Matrix> G(cotangent.data(), n_, d_);
    const auto xi = Xp_.row(i_);
    grad = Vector::Zero(d_);
    // Column i: value path A'_ji g_j and score path dS_ji = ∂f/∂S'_ji, rows j ≠ i: O(n·d).
    Vector v = Vector::Zero(d_);  // Σ_j dS_ji x'_j
    for (Index j = 0; j < n_; ++j) {
      if (j == i_) continue;
      const auto g = G.row(j);
      grad += col_weight_(j) * g.transpose();
      const double proj = g.dot(xi - Yp_.row(j));
      const double dS = kind_ == AttentionKind::softmax
                            ? col_weight_(j) * proj
                            : (col_scores_(j) > 0.0 ? col_inv_norm_(j) * proj : 0.0);
      v += dS * X_.row(j).transpose();
    }
    // Row i: dS_il for every l (including the diagonal): O(n·d).
    const auto gi = G.row(i_);
    grad += row_weight_(i_) * gi.transpose();
    const Vector gx = Xp_ * gi.transpose();  // g_iᵀx'_l
    const double gy = gi.dot(Yp_.row(i_));
    Vector dS_row(n_);
    for (Index l = 0; l < n_; ++l) {
      const double proj = gx(l) - gy;
      dS_row(l) = kind_ == AttentionKind::softmax
                      ? row_weight_(l) * proj
                      : (row_scores_(l) > 0.0 ? row_inv_norm_ * proj : 0.0);
    }
    const Vector u = Xp_.transpose() * dS_row;  // Σ_l dS_il x'_l
    v += dS_row(i_) * xi.transpose();           // the diagonal entry is also in column i
    // O(d²).
    grad.noalias() += inv_sqrt_d_ * (W_ * u + W_.transpose() * v);
  }

 private:
  /// Y' = A'X' for X' = X^i(Δ), and what pullback needs.
  void evaluate(const Vector& delta) {
    Xp_.row(i_) = X_.row(i_) + delta.transpose();
    const auto xi = Xp_.row(i_);
    // Column i, rows j ≠ i: S'_ji = q_j·x'_i.
    col_scores_.noalias() = Q_ * xi.transpose();
    for (Index j = 0; j < n_; ++j) {
      if (j == i_) continue;
      const double s = col_scores_(j);
      if (kind_ == AttentionKind::softmax) {
        const double M = std::max(loo_max_(j), s);
        const double old_scale = std::exp(loo_max_(j) - M);
        const double e_new = std::exp(s - M);
        const double Z = loo_sum_(j) * old_scale + e_new;
        Yp_.row(j) = (old_scale * T_.row(j) + e_new * xi) / Z;
        col_weight_(j) = e_new / Z;
      } else {
        const double r = std::max(s, 0.0);
        const double R = loo_sum_(j) + r;
        if (R > 0.0) {
          Yp_.row(j) = (T_.row(j) + r * xi) / R;
          col_weight_(j) = r / R;
          col_inv_norm_(j) = 1.0 / R;
        } else {
          Yp_.row(j).setZero();
          col_weight_(j) = 0.0;
          col_inv_norm_(j) = 0.0;
        }
      }
    }
    // Row i in full: q'_i = x'_iW/√d (O(d²)), S'_il = q'_i·x'_l (O(n·d)).
    const RowVector qi = xi * W_ * inv_sqrt_d_;
    row_scores_.noalias() = Xp_ * qi.transpose();
    if (kind_ == AttentionKind::softmax) {
      const double m = row_scores_.maxCoeff();
      row_weight_ = (row_scores_.array() - m).exp().matrix();
      row_weight_ /= row_weight_.sum();
    } else {
      row_weight_ = row_scores_.cwiseMax(0.0);
      const double R = row_weight_.sum();
      row_inv_norm_ = R > 0.0 ? 1.0 / R : 0.0;
      row_weight_ *= row_inv_norm_;
    }
    Yp_.row(i_).noalias() = row_weight_.transpose() * Xp_;
  }

  AttentionKind kind_;
  Index i_, n_, d_;
  double inv_sqrt_d_ = 1.0;
  Matrix X_, W_, Q_, T_;
  Vector loo_max_, loo_sum_;  // m_j (softmax), Z_j or R_j
  Vector base_;
  // State of the latest evaluate(): X', Y', column i and row i of S' and of A'.
  Matrix Xp_, Yp_;
  Vector col_scores_, col_weight_, col_inv_norm_;
  Vector row_scores_, row_weight_;
  double row_inv_norm_ = 0.0;
};

}  // namespace

std::unique_ptr<PositionEvaluator> make_attention_evaluator(const Matrix& X, const Matrix& W,
                                                            AttentionKind kind, Index position) {
  if (position < 0 || position >= X.rows()) {
    throw std::out_of_range("attention: word position " + std::to_string(position) +
                            " outside [0, " + std::to_string(X.rows()) + ")");
  }
  if (W.rows() != X.cols() || W.cols() != X.cols()) {
    throw std::invalid_argument("attention: W must be d x d");
  }
  return std::make_unique<AttentionEvaluator>(X, W, kind, position);
}

}  // namespace wordsens
