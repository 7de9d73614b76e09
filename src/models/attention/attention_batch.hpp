#pragma once
// The batched word-sensitivity objective of raf / raf_relu (internal to the attention model):
// f(Δ) = ‖φ(X^i(Δ)) − φ(X)‖² and ∇f for B points at once, possibly of different positions i of
// one sample, as matrix–matrix products (docs/METHOD.md §4).
//
// Row j ≠ i of φ(X^i(Δ)) − φ(X) is α_j T_j + γ_j x_i + c_j δ, with (a_j, c_j) the new
// coefficients of y'_j = a_j T_j + c_j x'_i, α_j = a_j − a⁰_j and γ_j = c_j − c⁰_j. Its squared
// norm follows from ‖T_j‖², T_j·x_i, ‖x_i‖² (per position) and T_j·δ = (E X δ)_j, x_i·δ, ‖δ‖²
// (per point), so neither φ' nor the cotangent 2(φ' − φ) is ever formed. The d × d products of
// the single-point evaluator (W x'_i, W u, Wᵀ v) become n × d ones through XW and XWᵀ, except
// (W + Wᵀ)δ for the diagonal score. Per point: 4n·d + d² + n² multiply–adds for f, 4n·d + n²
// more for ∇f (against 8n·d + 3d² for the single-point path); the n × d and d × d operands are
// the sample's, the same for every position, and are read once per batch.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <span>

#include "core/types.hpp"
#include "models/attention/attention.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {

/// What the evaluators of one sample share: XW = X W, XWt = X Wᵀ, the raw scores S = X W Xᵀ
/// (not divided by √d), W + Wᵀ, and [XW; XWt; X] (3n × d), whose product with the points gives
/// every per-point projection the objective needs and whose transpose gives the gradient but a
/// few rank-one terms. Computed once per sample, O(n·d² + n²·d); shared by all positions, so
/// points of different positions go into one product.
struct AttentionSampleProducts {
  Matrix XW, XWt, S, W_sym, stacked;
};

[[nodiscard]] std::shared_ptr<const AttentionSampleProducts> attention_sample_products(
    const Matrix& X, const Matrix& W);

/// make_attention_evaluator with the sample's products computed already (null: computes them).
[[nodiscard]] std::unique_ptr<PositionEvaluator> make_attention_evaluator(
    const Matrix& X, const Matrix& W, AttentionKind kind, Index position,
    std::shared_ptr<const AttentionSampleProducts> products);

/// The rows of the scores S (divided by √d already) summarised without the columns of a set L of
/// changed words: softmax keeps the row maximum m_r and Z_r = Σ_{l∉L} e^{S_rl − m_r}, relu
/// R_r = Σ_{l∉L} ReLU(S_rl); E holds the terms (e^{S_rl − m_r} or ReLU(S_rl)), zero in the
/// columns of L and in the rows of L (those are recomputed in full), so that T = E X is the
/// unchanged words' share of each row's output. Every row outside L keeps its own column, so
/// its maximum is finite.
struct LeaveOutSums {
  Matrix E;
  Vector max, sum;
};

/// O(n²); the rows of L are left zero.
[[nodiscard]] LeaveOutSums leave_out_sums(const Matrix& S, AttentionKind kind,
                                          std::span<const Index> excluded);

/// A row's weights from its scores: softmax shifted by the maximum, or the row-normalised ReLU
/// (zero when no score is positive). Returns 1/Σ ReLU for relu (0 for an all-zero row), which
/// the gradient needs, and 0 for softmax.
double normalise_row(AttentionKind kind, Eigen::Ref<const Eigen::VectorXd> scores,
                     Eigen::Ref<Eigen::VectorXd> weights);

/// A row outside the changed set L, given its leave-out sums: y' = a·T_r + Σ_j c_j x'_{L_j}.
/// For row-normalised ReLU inv = 1/R' (0 for an all-zero row), which its gradient needs.
struct LeaveOutCoefficients {
  double a = 0.0, inv = 0.0;
};

/// The coefficients of a row whose words outside L are summarised by (loo_max, loo_sum) and whose
/// words of L have the new scores `scores`: a and inv returned, c_j written to `weights`. Softmax
/// is re-scaled to the largest of loo_max and the new scores, so no exponent is positive and
/// scores of any finite size give finite results.
inline LeaveOutCoefficients leave_out_coefficients(AttentionKind kind, double loo_max,
                                                   double loo_sum, std::span<const double> scores,
                                                   std::span<double> weights) {
  LeaveOutCoefficients out;
  if (kind == AttentionKind::softmax) {
    double top = loo_max;
    for (const double s : scores) top = std::max(top, s);
    const double old_scale = std::exp(loo_max - top);
    double Z = loo_sum * old_scale;
    for (std::size_t j = 0; j < scores.size(); ++j) {
      weights[j] = std::exp(scores[j] - top);
      Z += weights[j];
    }
    out.a = old_scale / Z;
    for (double& w : weights) w /= Z;
    return out;
  }
  double R = loo_sum;
  for (std::size_t j = 0; j < scores.size(); ++j) {
    weights[j] = std::max(scores[j], 0.0);
    R += weights[j];
  }
  if (R > 0.0) {
    out.inv = 1.0 / R;
    out.a = out.inv;
    for (double& w : weights) w *= out.inv;
  } else {
    std::fill(weights.begin(), weights.end(), 0.0);
  }
  return out;
}

/// Row j's coefficients when word i's score in that row is s: y'_j = a·T_j + c·x'_i, and for
/// row-normalised ReLU inv = 1/R'_j (0 for an all-zero row), which its gradient needs.
struct LeaveOneOutCoefficients {
  double a = 0.0, c = 0.0, inv = 0.0;
};

/// What the batched objective needs of one position i, computed once by its evaluator.
struct AttentionBatchData {
  AttentionKind kind = AttentionKind::softmax;
  Index i = 0, n = 0, d = 0;
  double inv_sqrt_d = 1.0;
  const Matrix* X = nullptr;  // the sample, n × d
  std::shared_ptr<const AttentionSampleProducts> products;
  Matrix E;         // leave-one-out weights (n × n, row and column i zero): T = E X
  Vector loo_max;   // m_j (softmax)
  Vector loo_sum;   // Z_j (softmax) or R_j (relu)
  Vector a0, c0;    // the coefficients at Δ = 0
  RowVector y0;     // row i of φ(X)
  Vector tt, tx;    // ‖T_j‖², T_j·x_i
  double xx = 0.0;  // ‖x_i‖²

  /// Row j ≠ i's coefficients from its leave-one-out maximum and sum and word i's new score s
  /// (softmax re-scaled to the larger maximum, so no exponent is positive).
  [[nodiscard]] LeaveOneOutCoefficients row_coefficients(Index j, double s) const {
    double c = 0.0;
    const auto [a, inv] = leave_out_coefficients(kind, loo_max(j), loo_sum(j), {&s, 1}, {&c, 1});
    return {a, c, inv};
  }
};

/// Scratch of the batched objective, kept by its caller so that calls do not allocate.
struct AttentionBatchScratch {
  Eigen::MatrixXd deltas, projections, T_deltas, W_deltas, row_scores, row_weights, col_scores, a,
      c, alpha, gamma, col_inv, row_out, row_diff, g_rows, row_proj, d_scores, c_alpha, rhs, grads;
  Eigen::VectorXd row_inv_norm;
};

/// values(b) ← f(Δ_b) and, when grads is not null, grads.col(b) ← ∇f(Δ_b) for the columns Δ_b
/// of deltas (d × B), column b a point of the position columns[b] (all of one sample, sharing
/// its products). Consecutive columns of one position share their n × n products.
void attention_sensitivity_objective(std::span<const AttentionBatchData* const> columns,
                                     const Matrix& deltas, Vector& values, Matrix* grads,
                                     AttentionBatchScratch& scratch);

/// Implemented by the attention evaluators: what attention_sensitivity_objective needs of them.
class AttentionBatchSource {
 public:
  virtual ~AttentionBatchSource() = default;
  [[nodiscard]] virtual const AttentionBatchData& batch_data() const = 0;
};

}  // namespace wordsens
