// Attention's evaluator of several changed words from scratch (raf, raf_relu; raf_v with its
// projection P): φ(X^M(Δ)) recomputed for each point on its own. The plain path that raf's
// incremental evaluator (attention_word_set.cpp) is tested and benchmarked against, and raf_v's
// evaluator, whose projection costs O(n·d²) per point anyway.
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "models/attention/attention_word_set.hpp"

namespace wordsens {
namespace {

class ScratchAttentionWordSet final : public WordSetEvaluator {
 public:
  ScratchAttentionWordSet(const Matrix& X, const Matrix& W, AttentionKind kind,
                          std::vector<Index> positions, const Matrix* projection)
      : X_(X), W_(W), kind_(kind), positions_(std::move(positions)) {
    base_ = AttentionFeatures::features_with(X_, W_, kind_);
    if (projection != nullptr) {
      P_ = *projection;
      const Index n = X_.rows(), d = X_.cols();
      const Matrix projected = Eigen::Map<const Matrix>(base_.data(), n, d) * *P_;
      base_ = vec(projected);
    }
  }
  [[nodiscard]] std::span<const Index> positions() const override { return positions_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  // O(n²·d + n·d²) per point: Y = A X' (P), A = rownorm(S), S = X' W X'ᵀ/√d, and back again.
  void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) override {
    const Index n = X_.rows(), d = X_.cols(), m = static_cast<Index>(positions_.size());
    if (deltas.rows() != m * d) {
      throw std::invalid_argument("word set: points have " + std::to_string(deltas.rows()) +
                                  " coordinates, expected " + std::to_string(m * d));
    }
    const double c = 1.0 / std::sqrt(static_cast<double>(d));
    const Eigen::Map<const Matrix> Y0(base_.data(), n, d);
    values.resize(deltas.cols());
    if (grads != nullptr) grads->resize(m * d, deltas.cols());
    for (Index b = 0; b < deltas.cols(); ++b) {
      Xp_ = X_;
      for (Index j = 0; j < m; ++j) {
        Xp_.row(positions_[static_cast<std::size_t>(j)]) +=
            deltas.col(b).segment(j * d, d).transpose();
      }
      XW_.noalias() = Xp_ * W_;
      S_.noalias() = c * (XW_ * Xp_.transpose());
      A_ = normalise_scores(S_, kind_);
      R_.noalias() = A_ * Xp_;
      if (P_) R_ = R_ * *P_;
      R_ -= Y0;
      values(b) = R_.squaredNorm();
      if (grads == nullptr) continue;
      // ∂f/∂(A X'): 2R, through Y = (A X') P when projected.
      const Matrix C = P_ ? Matrix(2.0 * R_ * P_->transpose()) : Matrix(2.0 * R_);
      dX_.noalias() = A_.transpose() * C;     // through Y = A X'
      const Matrix dA = C * Xp_.transpose();  // ∂f/∂A
      normalise_scores_backward(S_, A_, dA, kind_, dS_);
      // S = c X' W X'ᵀ: ∂X' += c (∂S X' Wᵀ + ∂Sᵀ X' W).
      dX_.noalias() += c * (dS_ * (Xp_ * W_.transpose()));
      dX_.noalias() += c * (dS_.transpose() * XW_);
      for (Index j = 0; j < m; ++j) {
        grads->col(b).segment(j * d, d) =
            dX_.row(positions_[static_cast<std::size_t>(j)]).transpose();
      }
    }
  }

 private:
  Matrix X_, W_;
  AttentionKind kind_;
  std::vector<Index> positions_;
  std::optional<Matrix> P_;
  Vector base_;
  Matrix Xp_, XW_, S_, A_, R_, dX_, dS_;
};

}  // namespace

std::unique_ptr<WordSetEvaluator> make_attention_word_set_from_scratch(const Matrix& X,
                                                                       const Matrix& W,
                                                                       AttentionKind kind,
                                                                       std::vector<Index> positions,
                                                                       const Matrix* projection) {
  check_word_set(positions, X.rows());
  return std::make_unique<ScratchAttentionWordSet>(X, W, kind, std::move(positions), projection);
}

}  // namespace wordsens
