// Evaluators of several changed words: rf/drf's first-layer one and attention's from-scratch
// reference (the incremental attention evaluator is attention_word_set.cpp). Both compute each
// point on its own (no batching across points): the first-layer one is cheap at the sizes the
// multi-word study runs, and the reference is the plain path the tests compare with.
#include "models/word_set.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/activation.hpp"

namespace wordsens {

void check_word_set(std::span<const Index> positions, Index n) {
  if (positions.empty()) throw std::invalid_argument("word set: no positions");
  std::vector<Index> sorted(positions.begin(), positions.end());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t j = 0; j < sorted.size(); ++j) {
    if (sorted[j] < 0 || sorted[j] >= n) {
      throw std::out_of_range("word set: position " + std::to_string(sorted[j]) + " outside [0, " +
                              std::to_string(n) + ")");
    }
    if (j > 0 && sorted[j] == sorted[j - 1]) {
      throw std::invalid_argument("word set: position " + std::to_string(sorted[j]) +
                                  " appears twice");
    }
  }
}

namespace {

class FirstLayerWordSet final : public WordSetEvaluator {
 public:
  FirstLayerWordSet(Activation act, std::span<const Matrix> hidden, std::vector<Index> positions,
                    Vector a1, std::vector<Matrix> blocks)
      : act_(act),
        hidden_(hidden),
        positions_(std::move(positions)),
        a1_(std::move(a1)),
        blocks_(std::move(blocks)) {
    if (blocks_.size() != positions_.size() || blocks_.empty()) {
      throw std::invalid_argument("word set: one first-layer block per position is needed");
    }
    z_.resize(hidden_.size() + 1);
    h_.resize(hidden_.size() + 1);
    forward_from(a1_);
    base_ = h_.back();
  }
  [[nodiscard]] std::span<const Index> positions() const override { return positions_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  // O(m·k·d) for the first layer, O(k²) per hidden layer, per point; the gradient likewise.
  void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) override {
    const Index d = blocks_.front().cols(), m = static_cast<Index>(blocks_.size());
    if (deltas.rows() != m * d) {
      throw std::invalid_argument("word set: points have " + std::to_string(deltas.rows()) +
                                  " coordinates, expected " + std::to_string(m * d));
    }
    values.resize(deltas.cols());
    if (grads != nullptr) grads->resize(m * d, deltas.cols());
    for (Index b = 0; b < deltas.cols(); ++b) {
      z1_ = a1_;
      for (Index j = 0; j < m; ++j) {
        z1_.noalias() += blocks_[static_cast<std::size_t>(j)] * deltas.col(b).segment(j * d, d);
      }
      forward_from(z1_);
      r_ = h_.back() - base_;
      values(b) = r_.squaredNorm();
      if (grads == nullptr) continue;
      // g_L = 2(φ' − φ) ⊙ ϕ'(z_L), g_{l−1} = (V_lᵀ g_l) ⊙ ϕ'(z_{l−1}), ∇_{δ_j} = B_jᵀ g_1.
      g_ = 2.0 * r_;
      for (std::size_t l = z_.size(); l-- > 0;) {
        multiply_by_derivative(act_, z_[l], g_);
        if (l > 0) g_ = hidden_[l - 1].transpose() * g_;
      }
      for (Index j = 0; j < m; ++j) {
        grads->col(b).segment(j * d, d).noalias() =
            blocks_[static_cast<std::size_t>(j)].transpose() * g_;
      }
    }
  }

 private:
  void forward_from(const Vector& z1) {
    z_[0] = z1;
    activate(act_, z_[0], h_[0]);
    for (std::size_t l = 1; l < z_.size(); ++l) {
      z_[l].noalias() = hidden_[l - 1] * h_[l - 1];
      activate(act_, z_[l], h_[l]);
    }
  }

  Activation act_;
  std::span<const Matrix> hidden_;
  std::vector<Index> positions_;
  Vector a1_;
  std::vector<Matrix> blocks_;
  std::vector<Vector> z_, h_;
  Vector base_, z1_, r_, g_;
};

class ScratchAttentionWordSet final : public WordSetEvaluator {
 public:
  ScratchAttentionWordSet(const Matrix& X, const Matrix& W, AttentionKind kind,
                          std::vector<Index> positions)
      : X_(X), W_(W), kind_(kind), positions_(std::move(positions)) {
    base_ = AttentionFeatures::features_with(X_, W_, kind_);
  }
  [[nodiscard]] std::span<const Index> positions() const override { return positions_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  // O(n²·d + n·d²) per point: Y = A X', A = rownorm(S), S = X' W X'ᵀ/√d, and back again.
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
      R_ -= Y0;
      values(b) = R_.squaredNorm();
      if (grads == nullptr) continue;
      const Matrix C = 2.0 * R_;              // ∂f/∂Y
      dX_.noalias() = A_.transpose() * C;     // through Y = A X'
      const Matrix dA = C * Xp_.transpose();  // ∂f/∂A
      Matrix dS(n, n);
      for (Index r = 0; r < n; ++r) {
        if (kind_ == AttentionKind::softmax) {
          // A_r = softmax(S_r): ∂S_rl = A_rl (∂A_rl − Σ_q A_rq ∂A_rq).
          const double mean = A_.row(r).dot(dA.row(r));
          dS.row(r) = A_.row(r).cwiseProduct((dA.row(r).array() - mean).matrix());
        } else {
          // A_r = ReLU(S_r)/Σ ReLU(S_r) (zero row when the sum is 0: no gradient there):
          // ∂S_rl = [S_rl > 0] (∂A_rl − Σ_q A_rq ∂A_rq) / Σ_q ReLU(S_rq).
          const double sum = S_.row(r).cwiseMax(0.0).sum();
          if (!(sum > 0.0)) {
            dS.row(r).setZero();
            continue;
          }
          const double mean = A_.row(r).dot(dA.row(r));
          dS.row(r) =
              (S_.row(r).array() > 0.0).select((dA.row(r).array() - mean) / sum, 0.0).matrix();
        }
      }
      // S = c X' W X'ᵀ: ∂X' += c (∂S X' Wᵀ + ∂Sᵀ X' W).
      dX_.noalias() += c * (dS * (Xp_ * W_.transpose()));
      dX_.noalias() += c * (dS.transpose() * XW_);
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
  Vector base_;
  Matrix Xp_, XW_, S_, A_, R_, dX_;
};

}  // namespace

std::unique_ptr<WordSetEvaluator> make_first_layer_word_set(Activation act,
                                                            std::span<const Matrix> hidden,
                                                            std::vector<Index> positions, Vector a1,
                                                            std::vector<Matrix> blocks) {
  return std::make_unique<FirstLayerWordSet>(act, hidden, std::move(positions), std::move(a1),
                                             std::move(blocks));
}

std::unique_ptr<WordSetEvaluator> make_attention_word_set_from_scratch(
    const Matrix& X, const Matrix& W, AttentionKind kind, std::vector<Index> positions) {
  check_word_set(positions, X.rows());
  return std::make_unique<ScratchAttentionWordSet>(X, W, kind, std::move(positions));
}

}  // namespace wordsens
