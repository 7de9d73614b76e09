// The incremental evaluator of m changed words for raf / raf_relu (word_set.hpp).
//
// Moving the words M = (i_1, …, i_m) by Δ = (δ_1; …; δ_m) changes only the rows and columns M of
// S' = X'WX'ᵀ/√d. Every other row r keeps its leave-M-out sums over l ∉ M (LeaveOutSums in
// attention_batch.hpp: maximum m_r, normaliser Z_r or R_r, T_r = Σ_{l∉M} e_rl x_l), computed once,
// so y'_r = a_r T_r + Σ_k c_rk x'_{i_k} follows from its m new scores S'_{r,i_k} alone: the
// single-word evaluator's leave-one-out rows with m words left out. The m rows of M are recomputed
// in full. Every new score comes from the sample's products (attention_sample_products):
//   S'_{r,i_k} = S_{r,i_k} + (XW δ_k)_r/√d                                          (r ∉ M),
//   S'_{i_j,l} = S_{i_j,l} + (XWᵀ δ_j)_l/√d + [l = i_k] ((XW δ_k)_{i_j} + δ_j·W δ_k)/√d,
// so a point needs [XW; XWᵀ] times its m moves (2n·m·d multiply–adds) and W δ_k (m·d²), each one
// matrix–matrix product over all the points of a call.
//
// Accuracy: each unchanged row's difference y'_r − y_r = α_r T_r + Σ_k γ_rk x_{i_k} + Σ_k c_rk δ_k
// (α, γ the changes of the coefficients) is formed explicitly, O(n·m·d) per point, instead of
// summing its squared norm from Gram numbers as the single-word batch does: with words much longer
// than the moves, that sum cancels terms of order ‖x‖² down to a value of order ‖δ‖² and loses as
// many digits, while the explicit difference is as accurate as the from-scratch evaluation.
//
// Gradient: with G = 2(Y' − Y) and dS = ∂f/∂S', for p = i_k
//   ∂f/∂x'_p = Σ_r A'_rp G_r                                 (through Y' = A' X', column p of A')
//            + ((XWᵀ)ᵀ dS_{p,·} + Σ_j dS_{p,i_j} W δ_j)/√d    (row p of S')
//            + ((XW)ᵀ dS_{·,p} + Σ_j dS_{i_j,p} Wᵀ δ_j)/√d    (column p of S', in every row);
// the entries of dS outside the rows and columns M do not depend on Δ and are never formed.
#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/attention/attention.hpp"
#include "models/attention/attention_batch.hpp"
#include "models/attention/attention_word_set.hpp"

namespace wordsens {
namespace {

using ColMatrix = Eigen::MatrixXd;

/// The arrays of one call, kept so that calls of the same width do not allocate. A column of
/// width mB is the pair (point b, word k) at b·m + k.
struct WordSetScratch {
  ColMatrix D;                        // d × mB: δ_k
  ColMatrix proj;                     // 2n × mB: XW δ_k (rows [0, n)), XWᵀ δ_k (rows [n, 2n))
  ColMatrix WD, WtD;                  // d × mB: W δ_k, Wᵀ δ_k (the latter for ∇f only)
  ColMatrix row_scores, row_weights;  // n × mB: row i_k of S' and of A'
  Eigen::VectorXd row_inv;            // mB: 1/Σ ReLU of row i_k (relu)
  Matrix col_scores;                  // n × mB: S'_{r,i_k}, row-major (a row's m are contiguous)
  Matrix mix;                         // n × 2mB: per point [γ | c], row-major likewise
  ColMatrix a, alpha, inv;            // n × B: a_r, a_r − a⁰_r, 1/R'_r (relu)
  ColMatrix row_out, row_diff;        // d × mB: y'_{i_k}, y'_{i_k} − y_{i_k}
  Matrix basis;                       // 2m × d: [x_{i_k}; δ_kᵀ], then x'_{i_k} in the top half
  Matrix V;                           // n × d: Y' − Y of one point, then G = 2(Y' − Y)
  ColMatrix GX;                       // n × m: G_r·x'_{i_k}
  Eigen::VectorXd GT;                 // n: G_r·T_r
  ColMatrix g_rows, row_proj;         // d × mB: G_{i_k}; n × mB: G_{i_k}·x'_l
  ColMatrix dS;                       // 2n × mB: column i_k of dS (rows [0, n)), row i_k ([n, 2n))
  ColMatrix grad;                     // d × mB: ∂f/∂δ_k
};

class IncrementalAttentionWordSet final : public WordSetEvaluator {
 public:
  IncrementalAttentionWordSet(const Matrix& X, const Matrix& W, AttentionKind kind,
                              std::vector<Index> positions,
                              std::shared_ptr<const AttentionSampleProducts> products)
      : kind_(kind),
        n_(X.rows()),
        d_(X.cols()),
        m_(static_cast<Index>(positions.size())),
        inv_sqrt_d_(1.0 / std::sqrt(static_cast<double>(X.cols()))),
        positions_(std::move(positions)),
        X_(X),
        W_(W),
        products_(std::move(products)) {
    slot_.assign(static_cast<std::size_t>(n_), -1);
    XM_.resize(m_, d_);
    for (Index k = 0; k < m_; ++k) {
      slot_[static_cast<std::size_t>(pos(k))] = k;
      XM_.row(k) = X_.row(pos(k));
    }
    const Matrix S = products_->S * inv_sqrt_d_;
    LeaveOutSums sums = leave_out_sums(S, kind_, positions_);
    T_.noalias() = sums.E * X_;
    loo_max_ = std::move(sums.max);
    loo_sum_ = std::move(sums.sum);
    set_base(S);
  }

  [[nodiscard]] std::span<const Index> positions() const override { return positions_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) override {
    if (deltas.rows() != m_ * d_) {
      throw std::invalid_argument("word set: points have " + std::to_string(deltas.rows()) +
                                  " coordinates, expected " + std::to_string(m_ * d_));
    }
    const Index B = deltas.cols();
    const bool with_grad = grads != nullptr;
    values.resize(B);
    if (with_grad) grads->resize(m_ * d_, B);
    if (B == 0) return;
    resize_scratch(B);
    project_moves(deltas, with_grad);
    for (Index b = 0; b < B; ++b) score_point(b);
    changed_rows_output();
    for (Index b = 0; b < B; ++b) values(b) = point_difference(b, with_grad);
    if (!with_grad) return;
    changed_rows_backward();
    assemble_gradient(*grads);
  }

 private:
  [[nodiscard]] Index pos(Index k) const { return positions_[static_cast<std::size_t>(k)]; }
  [[nodiscard]] bool moved(Index r) const { return slot_[static_cast<std::size_t>(r)] >= 0; }

  /// φ(X) as the points compute it: the unchanged rows as a⁰_r T_r + Σ_k c⁰_rk x_{i_k}, the
  /// coefficients at the unchanged scores (a point's differences come from the coefficients'
  /// changes, exactly zero at Δ = 0), the moved rows through normalise_row like a point's.
  void set_base(const Matrix& S) {
    a0_ = Vector::Zero(n_);
    c0_ = Matrix::Zero(n_, m_);
    std::vector<double> scores(static_cast<std::size_t>(m_));
    for (Index r = 0; r < n_; ++r) {
      if (moved(r)) continue;
      for (Index k = 0; k < m_; ++k) scores[static_cast<std::size_t>(k)] = S(r, pos(k));
      a0_(r) = leave_out_coefficients(kind_, loo_max_(r), loo_sum_(r), scores,
                                      {c0_.row(r).data(), static_cast<std::size_t>(m_)})
                   .a;
    }
    Matrix Y = a0_.asDiagonal() * T_;
    Y.noalias() += c0_ * XM_;
    Eigen::VectorXd s(n_), weights(n_);
    for (Index k = 0; k < m_; ++k) {
      s = S.row(pos(k)).transpose();
      normalise_row(kind_, s, weights);
      Y.row(pos(k)).noalias() = weights.transpose() * X_;
    }
    base_ = vec(Y);
  }

  void resize_scratch(Index B) {
    const Index K = m_ * B;
    WordSetScratch& w = scratch_;
    w.D.resize(d_, K);
    w.row_scores.resize(n_, K);
    w.row_weights.resize(n_, K);
    w.row_inv.resize(K);
    w.col_scores.resize(n_, K);
    w.mix.resize(n_, 2 * K);
    for (ColMatrix* x : {&w.a, &w.alpha, &w.inv}) x->resize(n_, B);
    w.row_diff.resize(d_, K);
    w.basis.resize(2 * m_, d_);
    w.dS.resize(2 * n_, K);
    w.grad.resize(d_, K);
  }

  /// The moves as the columns of D, and the products every score needs: [XW; XWᵀ] D and W D
  /// (and Wᵀ D for the gradient), one matrix–matrix product each for the whole call.
  void project_moves(const Matrix& deltas, bool with_grad) {
    WordSetScratch& w = scratch_;
    for (Index b = 0; b < deltas.cols(); ++b) {
      for (Index k = 0; k < m_; ++k) w.D.col(b * m_ + k) = deltas.col(b).segment(k * d_, d_);
    }
    w.proj.noalias() = products_->stacked.topRows(2 * n_) * w.D;
    w.WD.noalias() = W_ * w.D;
    if (with_grad) w.WtD.noalias() = W_.transpose() * w.D;
  }

  /// Point b's new scores and weights: the changed rows in full, the others' coefficients from
  /// their leave-out sums and their m new scores.
  void score_point(Index b) {
    for (Index j = 0; j < m_; ++j) score_changed_row(b, j);
    for (Index r = 0; r < n_; ++r) score_unchanged_row(b, r);
  }

  /// Row i_j of S' and of A' for point b. The scores are the raw X W Xᵀ plus the projections,
  /// scaled last, so that Δ = 0 reproduces the set-up's scores bit for bit.
  void score_changed_row(Index b, Index j) {
    WordSetScratch& w = scratch_;
    const Index col = b * m_ + j, i = pos(j);
    auto s = w.row_scores.col(col);
    s = products_->S.row(i).transpose() + w.proj.col(col).tail(n_);
    for (Index k = 0; k < m_; ++k) {
      s(pos(k)) += w.proj(i, b * m_ + k) + w.D.col(col).dot(w.WD.col(b * m_ + k));
    }
    s *= inv_sqrt_d_;
    w.row_inv(col) = normalise_row(kind_, s, w.row_weights.col(col));
  }

  /// Row r's coefficients [γ | c] into mix and a_r, α_r, 1/R'_r. A moved row takes no part in the
  /// differences (it is recomputed in full), but its c holds A'_{r,i_k}, the column of A' the
  /// value path of the gradient needs.
  void score_unchanged_row(Index b, Index r) {
    WordSetScratch& w = scratch_;
    const Index k0 = b * m_;
    double* gamma = &w.mix(r, 2 * k0);
    double* coef = gamma + m_;
    if (moved(r)) {
      const Index j = slot_[static_cast<std::size_t>(r)];
      for (Index k = 0; k < m_; ++k) {
        gamma[k] = 0.0;
        coef[k] = w.row_weights(pos(k), k0 + j);
      }
      w.a(r, b) = w.alpha(r, b) = w.inv(r, b) = 0.0;
      return;
    }
    double* scores = &w.col_scores(r, k0);
    for (Index k = 0; k < m_; ++k) {
      scores[k] = (products_->S(r, pos(k)) + w.proj(r, k0 + k)) * inv_sqrt_d_;
    }
    const std::size_t m = static_cast<std::size_t>(m_);
    const auto [a, inv] =
        leave_out_coefficients(kind_, loo_max_(r), loo_sum_(r), {scores, m}, {coef, m});
    w.a(r, b) = a;
    w.alpha(r, b) = a - a0_(r);
    w.inv(r, b) = inv;
    for (Index k = 0; k < m_; ++k) gamma[k] = coef[k] - c0_(r, k);
  }

  /// y'_{i_j} = Xᵀ A'_{i_j,·} + Σ_k A'_{i_j,i_k} δ_k for every point, and its difference from y.
  void changed_rows_output() {
    WordSetScratch& w = scratch_;
    const Eigen::Map<const Matrix> Y0(base_.data(), n_, d_);
    w.row_out.noalias() = X_.transpose() * w.row_weights;
    for (Index col = 0; col < w.row_out.cols(); ++col) {
      const Index k0 = col - col % m_, j = col % m_;
      for (Index k = 0; k < m_; ++k) {
        w.row_out.col(col) += w.row_weights(pos(k), col) * w.D.col(k0 + k);
      }
      w.row_diff.col(col) = w.row_out.col(col) - Y0.row(pos(j)).transpose();
    }
  }

  /// f at point b from Y' − Y, whose unchanged rows are α_r T_r + [γ | c]_r [x_{i_k}; δ_k] and
  /// whose rows M are the changed rows' differences; with the gradient, also what the unchanged
  /// rows contribute to it.
  double point_difference(Index b, bool with_grad) {
    WordSetScratch& w = scratch_;
    const Index k0 = b * m_;
    w.basis.topRows(m_) = XM_;
    w.basis.bottomRows(m_) = w.D.middleCols(k0, m_).transpose();
    w.V.noalias() = w.mix.middleCols(2 * k0, 2 * m_) * w.basis;
    w.V += w.alpha.col(b).asDiagonal() * T_;
    for (Index j = 0; j < m_; ++j) w.V.row(pos(j)) = w.row_diff.col(k0 + j).transpose();
    const double value = w.V.squaredNorm();
    if (with_grad) unchanged_rows_backward(b);
    return value;
  }

  /// With G = 2(Y' − Y) of point b: the column entries dS_{r,i_k} of the unchanged rows, and the
  /// value path Σ_r A'_{r,i_k} G_r (every row, the moved ones included).
  void unchanged_rows_backward(Index b) {
    WordSetScratch& w = scratch_;
    const Index k0 = b * m_;
    w.V *= 2.0;
    w.basis.topRows(m_) += w.basis.bottomRows(m_);  // x'_{i_k}
    w.GX.noalias() = w.V * w.basis.topRows(m_).transpose();
    w.GT = w.V.cwiseProduct(T_).rowwise().sum();
    for (Index r = 0; r < n_; ++r) {
      if (moved(r)) continue;
      const double* coef = &w.mix(r, 2 * k0 + m_);
      // ∂f/∂S'_{r,i_k} = A'_{r,i_k} (G_r·x'_{i_k} − G_r·y'_r), relu's with 1/R' for A'.
      double gy = w.a(r, b) * w.GT(r);
      for (Index k = 0; k < m_; ++k) gy += coef[k] * w.GX(r, k);
      for (Index k = 0; k < m_; ++k) {
        const double proj = w.GX(r, k) - gy;
        w.dS(r, k0 + k) = kind_ == AttentionKind::softmax
                              ? coef[k] * proj
                              : (w.col_scores(r, k0 + k) > 0.0 ? w.inv(r, b) * proj : 0.0);
      }
    }
    w.grad.middleCols(k0, m_).noalias() = w.V.transpose() * w.mix.middleCols(2 * k0 + m_, m_);
  }

  /// ∂f/∂S' in the changed rows, dS_{i_k,l} = A'_{i_k,l} (G_{i_k}·x'_l − G_{i_k}·y'_{i_k}) (relu:
  /// with 1/R'), and from them the column entries dS_{i_j,i_k} of the moved rows.
  void changed_rows_backward() {
    WordSetScratch& w = scratch_;
    w.g_rows = 2.0 * w.row_diff;
    w.row_proj.noalias() = X_ * w.g_rows;
    const Index K = w.g_rows.cols();
    for (Index col = 0; col < K; ++col) {
      const Index k0 = col - col % m_;
      const auto g = w.g_rows.col(col);
      const double gy = g.dot(w.row_out.col(col));
      auto proj = w.row_proj.col(col);
      for (Index k = 0; k < m_; ++k) proj(pos(k)) += g.dot(w.D.col(k0 + k));  // x'_l = x_l + δ_k
      proj.array() -= gy;
      auto dS = w.dS.col(col).tail(n_);
      if (kind_ == AttentionKind::softmax) {
        dS = w.row_weights.col(col).cwiseProduct(proj);
      } else {
        dS = (w.row_scores.col(col).array() > 0.0)
                 .select(w.row_inv(col) * proj.array(), 0.0)
                 .matrix();
      }
    }
    for (Index col = 0; col < K; ++col) {
      const Index k0 = col - col % m_, k = col % m_;
      for (Index j = 0; j < m_; ++j) w.dS(pos(j), col) = w.dS(n_ + pos(k), k0 + j);
    }
  }

  /// The score paths of every δ_k added to the value path: one product with [XW; XWᵀ]ᵀ for the
  /// unchanged words, the rank-m terms dS_{i_k,i_j} W δ_j + dS_{i_j,i_k} Wᵀ δ_j for the moved ones.
  void assemble_gradient(Matrix& grads) {
    WordSetScratch& w = scratch_;
    w.grad.noalias() += inv_sqrt_d_ * (products_->stacked.topRows(2 * n_).transpose() * w.dS);
    for (Index col = 0; col < w.grad.cols(); ++col) {
      const Index k0 = col - col % m_, k = col % m_;
      for (Index j = 0; j < m_; ++j) {
        w.grad.col(col) += inv_sqrt_d_ * (w.dS(n_ + pos(j), col) * w.WD.col(k0 + j) +
                                          w.dS(pos(j), col) * w.WtD.col(k0 + j));
      }
      grads.col(col / m_).segment(k * d_, d_) = w.grad.col(col);
    }
  }

  AttentionKind kind_;
  Index n_, d_, m_;
  double inv_sqrt_d_;
  std::vector<Index> positions_;
  std::vector<Index> slot_;  // slot_[r] = k when r = i_k, else −1
  Matrix X_, W_;
  std::shared_ptr<const AttentionSampleProducts> products_;
  Matrix XM_;  // m × d: the moved words' rows x_{i_k}
  Matrix T_;   // n × d: Σ_{l∉M} e_rl x_l (zero in the rows of M)
  Vector loo_max_, loo_sum_;
  Vector a0_;  // a_r at Δ = 0
  Matrix c0_;  // n × m: c_rk at Δ = 0
  Vector base_;
  WordSetScratch scratch_;
};

}  // namespace

std::unique_ptr<WordSetEvaluator> make_attention_word_set(
    const Matrix& X, const Matrix& W, AttentionKind kind, std::vector<Index> positions,
    std::shared_ptr<const AttentionSampleProducts> products) {
  check_word_set(positions, X.rows());
  if (W.rows() != X.cols() || W.cols() != X.cols()) {
    throw std::invalid_argument("attention: W must be d x d");
  }
  if (!products) products = attention_sample_products(X, W);
  return std::make_unique<IncrementalAttentionWordSet>(X, W, kind, std::move(positions),
                                                       std::move(products));
}

}  // namespace wordsens
