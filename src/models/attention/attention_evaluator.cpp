// The per-position evaluator of raf / raf_relu (docs/METHOD.md §4).
//
// Perturbing word i changes only row i and column i of the scores S' = X'WX'ᵀ/√d. For every other
// row j the evaluator keeps leave-one-out sums over l ≠ i, computed once per position in
// O(n²·d + n·d²):
//   softmax: m_j = max_{l≠i} S_jl, Z_j = Σ_{l≠i} e^{S_jl − m_j}, T_j = Σ_{l≠i} e^{S_jl − m_j} x_l;
//   relu:    R_j = Σ_{l≠i} ReLU(S_jl),             T_j = Σ_{l≠i} ReLU(S_jl) x_l.
// A call then needs the new column entries S'_ji = x_j·k (k = W x'_iᵀ/√d), the new row i
// S'_il = q·x'_l (q = Wᵀ x'_iᵀ/√d), and an O(d) update of each y'_j = a_j T_j + c_j x'_i: softmax
// rescales to the new maximum M = max(m_j, S'_ji) (all exponents ≤ 0, so scores in the hundreds
// or thousands stay finite); relu adds the new term. Total O(n·d + d²) per features_at and per
// pullback.
//
// Speed: at the paper's sizes W (d×d, 4.7 MB at d = 768) and the n×d arrays (1.5 MB at
// n = 250) live in L3 or memory, so the cost is the number of passes over them, not the flops.
// Each call makes exactly one pass over W (W x and Wᵀ x together forward, W u and Wᵀ v together
// backward) and one pass over the rows of X and T (all per-row work of a call fused into one
// loop); Y' is written straight into the caller's vector and never re-read, since y'_j is
// represented by the two scalars (a_j, c_j).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/attention/attention.hpp"
#include "models/attention/attention_batch.hpp"

namespace wordsens {
namespace {

/// One pass over the rows of W: y = W aᵀ and z = b W. W is read from memory once, a block of
/// kRowBlock rows at a time (24 KB at d = 768), and the block is used twice while it is in L1;
/// the two small products are Eigen's vectorised matrix-vector kernels.
void fused_products(const Matrix& W, const RowVector& a, const RowVector& b, Vector& y,
                    RowVector& z) {
  constexpr Index kRowBlock = 8;
  z.setZero();
  for (Index r = 0; r < W.rows(); r += kRowBlock) {
    const Index rows = std::min(kRowBlock, W.rows() - r);
    const auto block = W.middleRows(r, rows);
    y.segment(r, rows).noalias() = block * a.transpose();
    z.noalias() += b.segment(r, rows) * block;
  }
}

class AttentionEvaluator final : public PositionEvaluator, public AttentionBatchSource {
 public:
  AttentionEvaluator(const Matrix& X, const Matrix& W, AttentionKind kind, Index position,
                     std::shared_ptr<const AttentionSampleProducts> products)
      : kind_(kind), i_(position), n_(X.rows()), d_(X.cols()), X_(X), W_(W) {
    inv_sqrt_d_ = 1.0 / std::sqrt(static_cast<double>(d_));
    const Matrix S = products->S * inv_sqrt_d_;  // S_jl = x_j W x_lᵀ/√d
    // Leave-one-out weights E_jl (l ≠ i), E_ji = 0, row i unused.
    LeaveOutSums sums = leave_out_sums(S, kind_, std::span<const Index>(&i_, 1));
    batch_.kind = kind_;  // row_coefficients reads it from the first evaluation on
    batch_.loo_max = std::move(sums.max);
    batch_.loo_sum = std::move(sums.sum);
    T_ = sums.E * X_;
    batch_.E = std::move(sums.E);
    col_scores_ = Vector::Zero(n_);
    col_weight_ = Vector::Zero(n_);
    col_coef_T_ = Vector::Zero(n_);
    col_inv_norm_ = Vector::Zero(n_);
    row_scores_.resize(n_);
    row_weight_.resize(n_);
    k_.resize(d_);
    q_.resize(d_);
    acc_.resize(d_);
    u_.resize(d_);
    v_.resize(d_);
    Wu_.resize(d_);
    Wtv_.resize(d_);
    base_.resize(n_ * d_);
    evaluate(Vector::Zero(d_), base_);
    prepare_batches(std::move(products));
  }

  [[nodiscard]] Index position() const override { return i_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  void features_at(const Vector& delta, Vector& out) override {
    if (delta.size() != d_) throw std::invalid_argument("raf evaluator: Δ has the wrong size");
    if (out.size() != n_ * d_) out.resize(n_ * d_);
    evaluate(delta, out);
  }

  void pullback(const Vector& cotangent, Vector& grad) override {
    if (cotangent.size() != n_ * d_) {
      throw std::invalid_argument("raf evaluator: cotangent has the wrong size");
    }
    const Eigen::Map<const Matrix> G(cotangent.data(), n_, d_);
    const auto gi = G.row(i_);
    const double gy = gi.dot(yi_);
    if (grad.size() != d_) grad.resize(d_);
    grad.setZero();
    u_.setZero();  // Σ_l dS_il x'_l      (row i of S')
    v_.setZero();  // Σ_{j≠i} dS_ji x_j  (column i of S')
    // One pass over the rows: row i's score path for word l, and word l's own row (l ≠ i):
    // value path c_l g_l and score path dS_li = ∂f/∂S'_li.
    for (Index l = 0; l < n_; ++l) {
      const Eigen::Map<const RowVector> xl(l == i_ ? xi_.data() : X_.row(l).data(), d_);
      const double row_proj = gi.dot(xl) - gy;
      const double dS_row = kind_ == AttentionKind::softmax
                                ? row_weight_(l) * row_proj
                                : (row_scores_(l) > 0.0 ? row_inv_norm_ * row_proj : 0.0);
      u_.noalias() += dS_row * xl;
      if (l == i_) {
        v_.noalias() += dS_row * xi_;  // the diagonal entry is also in column i
        continue;
      }
      const auto g = G.row(l);
      grad.noalias() += col_weight_(l) * g.transpose();
      const double gxi = g.dot(xi_);
      // g·(x'_i − y'_l) with y'_l = a_l T_l + c_l x'_i.
      const double proj = (1.0 - col_weight_(l)) * gxi - col_coef_T_(l) * g.dot(T_.row(l));
      const double dS = kind_ == AttentionKind::softmax
                            ? col_weight_(l) * proj
                            : (col_scores_(l) > 0.0 ? col_inv_norm_(l) * proj : 0.0);
      v_.noalias() += dS * X_.row(l);
    }
    grad += row_weight_(i_) * gi.transpose();
    // O(d²): ∂/∂x'_i of S'_il = x'_i W x'_lᵀ/√d gives W u, of S'_ji = x_j W x'_iᵀ/√d gives Wᵀ v.
    fused_products(W_, u_, v_, Wu_, Wtv_);
    grad += inv_sqrt_d_ * (Wu_ + Wtv_.transpose());
  }

  void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) override {
    if (deltas.rows() != d_) throw std::invalid_argument("raf evaluator: Δ has the wrong size");
    columns_.assign(static_cast<std::size_t>(deltas.cols()), &batch_);
    attention_sensitivity_objective(columns_, deltas, values, grads, scratch_);
  }

  [[nodiscard]] const AttentionBatchData& batch_data() const override { return batch_; }

 private:
  /// φ(X') for X' = X^i(Δ) into out, and what pullback needs.
  void evaluate(const Vector& delta, Vector& out) {
    xi_ = X_.row(i_) + delta.transpose();
    // k = W x'_iᵀ (column i: S'_ji = x_j·k/√d), q = x'_i W (row i: S'_il = q·x'_l/√d).
    fused_products(W_, xi_, xi_, k_, q_);
    Eigen::Map<Matrix> Y(out.data(), n_, d_);
    // One pass over the rows. Row i's output Σ_l A'_il x'_l is accumulated on the fly: softmax
    // keeps a running maximum and rescales the accumulator when it grows (about ln n times).
    double run_max = -std::numeric_limits<double>::infinity();
    double run_sum = 0.0;
    acc_.setZero();
    for (Index l = 0; l < n_; ++l) {
      const Eigen::Map<const RowVector> xl(l == i_ ? xi_.data() : X_.row(l).data(), d_);
      const double r = xl.dot(q_) * inv_sqrt_d_;
      row_scores_(l) = r;
      if (kind_ == AttentionKind::softmax) {
        if (r > run_max) {
          const double scale = std::exp(run_max - r);  // 0 for the first word
          run_sum *= scale;
          acc_ *= scale;
          run_max = r;
        }
        const double e = std::exp(r - run_max);
        run_sum += e;
        acc_.noalias() += e * xl;
      } else if (r > 0.0) {
        run_sum += r;
        acc_.noalias() += r * xl;
      }
      if (l == i_) continue;
      const double s = X_.row(l).dot(k_) * inv_sqrt_d_;
      col_scores_(l) = s;
      const auto [a, c, inv] = batch_.row_coefficients(l, s);
      col_coef_T_(l) = a;
      col_weight_(l) = c;
      col_inv_norm_(l) = inv;
      Y.row(l).noalias() = a * T_.row(l) + c * xi_;
    }
    if (kind_ == AttentionKind::softmax) {
      row_weight_ = (row_scores_.array() - run_max).exp().matrix() / run_sum;
      yi_ = acc_ / run_sum;
    } else {
      row_inv_norm_ = run_sum > 0.0 ? 1.0 / run_sum : 0.0;
      row_weight_ = row_scores_.cwiseMax(0.0) * row_inv_norm_;
      yi_ = acc_ * row_inv_norm_;
    }
    Y.row(i_) = yi_;
  }

  /// What attention_sensitivity_objective needs beyond the single-point state: the state of
  /// evaluate(0) (a⁰, c⁰, y_i) and the per-position Gram numbers of T and x_i.
  void prepare_batches(std::shared_ptr<const AttentionSampleProducts> products) {
    batch_.i = i_;
    batch_.n = n_;
    batch_.d = d_;
    batch_.inv_sqrt_d = inv_sqrt_d_;
    batch_.X = &X_;
    batch_.products = std::move(products);
    batch_.a0 = col_coef_T_;
    batch_.c0 = col_weight_;
    batch_.a0(i_) = batch_.c0(i_) = 0.0;
    batch_.y0 = yi_;
    batch_.tt = T_.rowwise().squaredNorm();
    batch_.tx = T_ * X_.row(i_).transpose();
    batch_.xx = X_.row(i_).squaredNorm();
  }

  AttentionKind kind_;
  Index i_, n_, d_;
  double inv_sqrt_d_ = 1.0;
  Matrix X_, W_, T_;
  Vector base_;
  // State of the latest evaluate(): x'_i, y'_i, column i of S' and y'_j = a_j T_j + c_j x'_i,
  // row i of S' and of A'.
  RowVector xi_, yi_;
  Vector col_scores_, col_weight_, col_coef_T_, col_inv_norm_;
  Vector row_scores_, row_weight_;
  double row_inv_norm_ = 0.0;
  // Scratch, allocated once.
  Vector k_, Wu_;
  RowVector q_, acc_, u_, v_, Wtv_;
  // The leave-one-out sums (m_j, Z_j or R_j) and E live here, read by both paths.
  AttentionBatchData batch_;
  AttentionBatchScratch scratch_;
  std::vector<const AttentionBatchData*> columns_;
};

}  // namespace

std::unique_ptr<PositionEvaluator> make_attention_evaluator(const Matrix& X, const Matrix& W,
                                                            AttentionKind kind, Index position) {
  return make_attention_evaluator(X, W, kind, position, nullptr);
}

std::unique_ptr<PositionEvaluator> make_attention_evaluator(
    const Matrix& X, const Matrix& W, AttentionKind kind, Index position,
    std::shared_ptr<const AttentionSampleProducts> products) {
  if (position < 0 || position >= X.rows()) {
    throw std::out_of_range("attention: word position " + std::to_string(position) +
                            " outside [0, " + std::to_string(X.rows()) + ")");
  }
  if (W.rows() != X.cols() || W.cols() != X.cols()) {
    throw std::invalid_argument("attention: W must be d x d");
  }
  if (!products) products = attention_sample_products(X, W);
  return std::make_unique<AttentionEvaluator>(X, W, kind, position, std::move(products));
}

}  // namespace wordsens
