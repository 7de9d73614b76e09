#pragma once
// The layers after the first of rf and drf, for a batch of points (one column each): the forward
// pass H_l = ϕ(Z_l), Z_{l+1} = V_{l+1} H_l and its back-propagation. Shared by the evaluators
// that move the first layer's input (one word: drf's position group; several: the word-set
// evaluator), so that every point of a call reads each k × k layer once, not once per point: by
// blocks of rows up to 8 points, with a GEMM beyond (hidden_layers.cpp).
#include <span>
#include <vector>

#include "core/types.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {

class HiddenLayerBatch {
 public:
  /// `hidden` (V_2 … V_L; empty for rf) must outlive this object.
  HiddenLayerBatch(Activation act, std::span<const Matrix> hidden);

  /// Z_1 ← `first` (the first layer's preactivations, k × B), then every layer; returns H_L,
  /// φ at each point (valid until the next call; the caller may modify it).
  Matrix& forward(Matrix first);
  /// G ← ∂⟨G, H_L⟩/∂Z_1 at the points of the latest forward: G_L = G ⊙ ϕ'(Z_L),
  /// G_{l−1} = (V_lᵀ G_l) ⊙ ϕ'(Z_{l−1}).
  void backward(Matrix& G) const;
  /// The word-sensitivity objective f = ‖φ − base‖² at each column of `first` (Z_1): values(b),
  /// and when `gradient` is not null, ∂f/∂Z_1 there (the caller pulls it back through its first
  /// layer).
  void sensitivity_objective(Matrix first, const Vector& base, Vector& values, Matrix* gradient);

 private:
  Activation act_;
  std::span<const Matrix> hidden_;
  std::vector<Matrix> Z_, H_;  // Z_l, H_l = ϕ(Z_l), l = 1 … L (index l − 1)
};

}  // namespace wordsens
