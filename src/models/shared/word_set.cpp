// The evaluator of several changed words of rf and drf (the first layer's): it runs a call's
// points together (GEMMs, models/shared/hidden_layers.hpp). Attention's are in
// models/attention/.
#include "models/shared/word_set.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/shared/hidden_layers.hpp"

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
      : layers_(act, hidden), positions_(std::move(positions)), a1_(std::move(a1)) {
    if (blocks.size() != positions_.size() || blocks.empty()) {
      throw std::invalid_argument("word set: one first-layer block per position is needed");
    }
    // One k × m·d matrix: each call multiplies it by all its points at once (a GEMM, not m
    // matrix–vector products per point, which would read the blocks once per point).
    const Index k = blocks.front().rows(), d = blocks.front().cols();
    B_.resize(k, d * static_cast<Index>(blocks.size()));
    for (std::size_t j = 0; j < blocks.size(); ++j) {
      B_.middleCols(static_cast<Index>(j) * d, d) = blocks[j];
    }
    base_ = layers_.forward(Matrix(a1_)).col(0);
  }
  [[nodiscard]] std::span<const Index> positions() const override { return positions_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  // O(m·k·d) for the first layer, O(k²) per hidden layer, per point; the gradient likewise.
  void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) override {
    if (deltas.rows() != B_.cols()) {
      throw std::invalid_argument("word set: points have " + std::to_string(deltas.rows()) +
                                  " coordinates, expected " + std::to_string(B_.cols()));
    }
    Matrix Z1 = B_ * deltas;
    Z1.colwise() += a1_;
    Matrix G;  // ∂f/∂Z_1
    layers_.sensitivity_objective(std::move(Z1), base_, values, grads != nullptr ? &G : nullptr);
    if (grads == nullptr) return;
    grads->noalias() = B_.transpose() * G;  // ∇_Δ = Bᵀ G_1
  }

 private:
  HiddenLayerBatch layers_;
  std::vector<Index> positions_;
  Vector a1_;
  Matrix B_;
  Vector base_;
};

}  // namespace

std::unique_ptr<WordSetEvaluator> make_first_layer_word_set(Activation act,
                                                            std::span<const Matrix> hidden,
                                                            std::vector<Index> positions, Vector a1,
                                                            std::vector<Matrix> blocks) {
  return std::make_unique<FirstLayerWordSet>(act, hidden, std::move(positions), std::move(a1),
                                             std::move(blocks));
}

}  // namespace wordsens
