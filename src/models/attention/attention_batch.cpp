// The batched word-sensitivity objective of raf / raf_relu: see attention_batch.hpp. The scalar
// formulas per word are those of the single-point evaluator (attention_evaluator.cpp); what
// changes is that every O(n·d) or O(d²) step is one matrix–matrix product over the batch.
#include "models/attention/attention_batch.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace wordsens {

std::shared_ptr<const AttentionSampleProducts> attention_sample_products(const Matrix& X,
                                                                         const Matrix& W) {
  auto products = std::make_shared<AttentionSampleProducts>();
  products->XW.noalias() = X * W;
  products->XWt.noalias() = X * W.transpose();
  products->S.noalias() = products->XW * X.transpose();
  products->W_sym = W + W.transpose();
  products->stacked.resize(3 * X.rows(), X.cols());
  products->stacked << products->XW, products->XWt, X;
  return products;
}

LeaveOutSums leave_out_sums(const Matrix& S, AttentionKind kind, std::span<const Index> excluded) {
  const Index n = S.rows();
  std::vector<char> left_out(static_cast<std::size_t>(n), 0);
  for (const Index l : excluded) left_out[static_cast<std::size_t>(l)] = 1;
  const auto kept = [&left_out](Index l) { return left_out[static_cast<std::size_t>(l)] == 0; };
  LeaveOutSums sums{Matrix::Zero(n, n), Vector::Zero(n), Vector::Zero(n)};
  for (Index r = 0; r < n; ++r) {
    if (!kept(r)) continue;
    if (kind == AttentionKind::softmax) {
      double top = -std::numeric_limits<double>::infinity();
      for (Index l = 0; l < n; ++l)
        if (kept(l)) top = std::max(top, S(r, l));
      for (Index l = 0; l < n; ++l)
        if (kept(l)) sums.E(r, l) = std::exp(S(r, l) - top);
      sums.max(r) = top;
    } else {
      for (Index l = 0; l < n; ++l)
        if (kept(l)) sums.E(r, l) = std::max(S(r, l), 0.0);
    }
    sums.sum(r) = sums.E.row(r).sum();
  }
  return sums;
}

double normalise_row(AttentionKind kind, Eigen::Ref<const Eigen::VectorXd> scores,
                     Eigen::Ref<Eigen::VectorXd> weights) {
  if (kind == AttentionKind::softmax) {
    const double top = scores.maxCoeff();
    weights = (scores.array() - top).exp().matrix();
    weights /= weights.sum();
    return 0.0;
  }
  weights = scores.cwiseMax(0.0);
  const double sum = weights.sum();
  const double inv = sum > 0.0 ? 1.0 / sum : 0.0;
  weights *= inv;
  return inv;
}

namespace {

/// Row i of A' for one point: its scores r_l = x'_i W x'_lᵀ/√d into `scores`, its weights into
/// `weights`; returns 1/Σ ReLU(r) for relu (0 for an all-zero row), 0 for softmax.
double row_i_weights(const AttentionBatchData& p, const Eigen::MatrixXd& F, Index b,
                     double delta_W_delta, Eigen::Ref<Eigen::VectorXd> scores,
                     Eigen::Ref<Eigen::VectorXd> weights) {
  const Index n = p.n, i = p.i;
  const Matrix& S = p.products->S;
  for (Index l = 0; l < n; ++l) scores(l) = S(i, l) + F(n + l, b);
  scores(i) += F(i, b) + delta_W_delta;
  scores *= p.inv_sqrt_d;
  return normalise_row(p.kind, scores, weights);
}

/// out.middleCols(run) ← M_p · in.middleCols(run) (or M_pᵀ) for every run of consecutive columns
/// of one position p, M_p = that position's E.
template <bool kTranspose, typename In, typename Out>
void per_position_product(std::span<const AttentionBatchData* const> columns, const In& in,
                          Out&& out) {
  const Index B = static_cast<Index>(columns.size());
  for (Index c0 = 0; c0 < B;) {
    Index c1 = c0 + 1;
    while (c1 < B &&
           columns[static_cast<std::size_t>(c1)] == columns[static_cast<std::size_t>(c0)]) {
      ++c1;
    }
    const Matrix& E = columns[static_cast<std::size_t>(c0)]->E;
    if constexpr (kTranspose) {
      out.middleCols(c0, c1 - c0).noalias() = E.transpose() * in.middleCols(c0, c1 - c0);
    } else {
      out.middleCols(c0, c1 - c0).noalias() = E * in.middleCols(c0, c1 - c0);
    }
    c0 = c1;
  }
}

}  // namespace

void attention_sensitivity_objective(std::span<const AttentionBatchData* const> columns,
                                     const Matrix& deltas, Vector& values, Matrix* grads,
                                     AttentionBatchScratch& w) {
  const Index B = deltas.cols();
  if (B == 0) {
    values.resize(0);
    if (grads != nullptr) grads->resize(deltas.rows(), 0);
    return;
  }
  if (static_cast<Index>(columns.size()) != B) {
    throw std::invalid_argument("attention batch: one position per column expected");
  }
  const AttentionBatchData& first = *columns.front();
  const Index n = first.n, d = first.d;
  const AttentionSampleProducts& products = *first.products;
  for (const AttentionBatchData* p : columns) {
    if (p->products.get() != &products) {
      throw std::invalid_argument("attention batch: the columns' positions are of different texts");
    }
  }
  const bool softmax = first.kind == AttentionKind::softmax;
  const double s = first.inv_sqrt_d;
  const Matrix& X = *first.X;
  w.deltas = deltas;
  const Eigen::MatrixXd& D = w.deltas;
  // F rows [0, n): (XW)_j·δ, [n, 2n): (XWᵀ)_l·δ, [2n, 3n): x_j·δ; H = (W + Wᵀ)Δ; T_j·δ = E (Xδ).
  w.projections.noalias() = products.stacked * D;
  w.W_deltas.noalias() = products.W_sym * D;
  w.T_deltas.resize(n, B);
  per_position_product<false>(columns, w.projections.bottomRows(n), w.T_deltas);
  const Eigen::MatrixXd& F = w.projections;
  for (Eigen::MatrixXd* m :
       {&w.row_scores, &w.row_weights, &w.col_scores, &w.a, &w.c, &w.alpha, &w.gamma, &w.col_inv}) {
    m->setZero(n, B);
  }
  w.row_inv_norm.resize(B);
  values.resize(B);
  Eigen::VectorXd xi_delta(B), delta_sq(B);
  for (Index b = 0; b < B; ++b) {
    const AttentionBatchData& p = *columns[static_cast<std::size_t>(b)];
    const Index i = p.i;
    const auto delta = D.col(b);
    xi_delta(b) = F(2 * n + i, b);
    delta_sq(b) = delta.squaredNorm();
    // δ W δᵀ = ½ δ·(W + Wᵀ)δ.
    w.row_inv_norm(b) = row_i_weights(p, F, b, 0.5 * delta.dot(w.W_deltas.col(b)),
                                      w.row_scores.col(b), w.row_weights.col(b));
    // Rows j ≠ i: ‖α_j T_j + γ_j x_i + c_j δ‖² from the per-position Gram numbers.
    double f = 0.0;
    for (Index j = 0; j < n; ++j) {
      if (j == i) continue;
      const double sc = (products.S(j, i) + F(j, b)) * s;
      const auto [a, c, inv] = p.row_coefficients(j, sc);
      const double alpha = a - p.a0(j), gamma = c - p.c0(j), t_delta = w.T_deltas(j, b);
      w.col_scores(j, b) = sc;
      w.a(j, b) = a;
      w.c(j, b) = c;
      w.alpha(j, b) = alpha;
      w.gamma(j, b) = gamma;
      w.col_inv(j, b) = inv;
      f += alpha * alpha * p.tt(j) + gamma * gamma * p.xx + c * c * delta_sq(b) +
           2.0 * (alpha * gamma * p.tx(j) + alpha * c * t_delta + gamma * c * xi_delta(b));
    }
    values(b) = f;
  }
  // Row i: y'_i = Σ_l A'_il x'_l = Xᵀ A'_i· + A'_ii δ, compared with its value at Δ = 0.
  w.row_out.noalias() = X.transpose() * w.row_weights;
  w.row_diff.resize(d, B);
  for (Index b = 0; b < B; ++b) {
    const AttentionBatchData& p = *columns[static_cast<std::size_t>(b)];
    w.row_out.col(b) += w.row_weights(p.i, b) * D.col(b);
    w.row_diff.col(b) = w.row_out.col(b) - p.y0.transpose();
    values(b) += w.row_diff.col(b).squaredNorm();
  }
  if (grads == nullptr) return;

  // ∇f: the single-point pullback with cotangent G = 2(φ' − φ), G_j = 2(α_j T_j + γ_j x_i +
  // c_j δ) for j ≠ i and G_i = 2(y'_i − y_i), every sum over words a product with X or Xᵀ.
  w.g_rows = 2.0 * w.row_diff;
  w.row_proj.noalias() = X * w.g_rows;  // g_i·x_l
  w.d_scores.setZero(n, 2 * B);         // ∂f/∂(row i scores) | ∂f/∂(column i scores)
  w.c_alpha.setZero(n, B);
  Eigen::VectorXd c_gamma(B), c_sq(B);
  for (Index b = 0; b < B; ++b) {
    const AttentionBatchData& p = *columns[static_cast<std::size_t>(b)];
    const Index i = p.i;
    const double gy = w.g_rows.col(b).dot(w.row_out.col(b));
    for (Index l = 0; l < n; ++l) {
      const double proj = w.row_proj(l, b) + (l == i ? w.g_rows.col(b).dot(D.col(b)) : 0.0) - gy;
      w.d_scores(l, b) = softmax ? w.row_weights(l, b) * proj
                                 : (w.row_scores(l, b) > 0.0 ? w.row_inv_norm(b) * proj : 0.0);
    }
    double cg = 0.0, cc = 0.0;
    for (Index j = 0; j < n; ++j) {
      if (j == i) continue;
      const double a = w.a(j, b), c = w.c(j, b), alpha = w.alpha(j, b), gamma = w.gamma(j, b);
      const double t_delta = w.T_deltas(j, b);
      // g_j·x'_i and g_j·T_j.
      const double g_xi = 2.0 * (alpha * (p.tx(j) + t_delta) + gamma * (p.xx + xi_delta(b)) +
                                 c * (xi_delta(b) + delta_sq(b)));
      const double g_T = 2.0 * (alpha * p.tt(j) + gamma * p.tx(j) + c * t_delta);
      const double proj = (1.0 - c) * g_xi - a * g_T;
      w.d_scores(j, B + b) =
          softmax ? c * proj : (w.col_scores(j, b) > 0.0 ? w.col_inv(j, b) * proj : 0.0);
      w.c_alpha(j, b) = c * alpha;
      cg += c * gamma;
      cc += c * c;
    }
    w.d_scores(i, B + b) = w.d_scores(i, b);  // the diagonal score is in row i and column i
    c_gamma(b) = cg;
    c_sq(b) = cc;
  }
  // With u = Σ_l dS_il x'_l and v = Σ_j dS_ji x'_j (x'_i = x_i + δ), the O(d²) part of the
  // single-point pullback, (W u + Wᵀ v)/√d, is ((XWᵀ)ᵀ dS_i· + (XW)ᵀ dS_·i + dS_ii (W + Wᵀ)δ)/√d,
  // and Σ_j c_j g_j needs Tᵀ(c ⊙ α) = Xᵀ Eᵀ(c ⊙ α): one product with [XW; XWᵀ; X]ᵀ.
  w.rhs.resize(3 * n, B);
  w.rhs.topRows(n) = s * w.d_scores.rightCols(B);
  w.rhs.middleRows(n, n) = s * w.d_scores.leftCols(B);
  per_position_product<true>(columns, w.c_alpha, w.rhs.bottomRows(n));
  w.rhs.bottomRows(n) *= 2.0;
  w.grads.noalias() = products.stacked.transpose() * w.rhs;
  for (Index b = 0; b < B; ++b) {
    const AttentionBatchData& p = *columns[static_cast<std::size_t>(b)];
    w.grads.col(b) += (s * w.d_scores(p.i, b)) * w.W_deltas.col(b) +
                      2.0 * (c_gamma(b) * X.row(p.i).transpose() + c_sq(b) * D.col(b)) +
                      w.row_weights(p.i, b) * w.g_rows.col(b);
  }
  *grads = w.grads;
}

}  // namespace wordsens
