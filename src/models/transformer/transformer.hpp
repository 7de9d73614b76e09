#pragma once
// The transformer family (docs/METHOD.md §2), every model one TransformerLayer
// (transformer_layer.hpp) with the task's random weights:
//
//   mhraf   H heads with their own queries, keys and values, concatenated and projected back:
//           Q, K, V, O ∈ R^{d×d} iid N(0, 1/d) (head h: columns C_h of Q, K and V), no norm,
//           no residual, no MLP;
//   block   a pre-LayerNorm transformer block, X + MHA(LN(X)) then + MLP(LN(·)), with mhraf's
//           attention and an MLP of width k (the task's k, from `mlp-width`; 4d by default),
//           W1 ∈ R^{d×k} iid N(0, 1/d), W2 ∈ R^{k×d}
//           iid N(0, c/k), c = 1/E ϕ(g)² (ReLU 2, tanh 2.536, GELU 2.352), so that each part keeps
//           a row's norm in expectation;
//   raf, raf_relu, raf_v under a causal mask (mask = causal): their weights, their definition,
//           word j attending to words 0 … j only.
//
// Weights: matrices of the task's weight stream, numbered by role so that a role has the same
// matrix in every model: W (raf's scores) 0, W_V 1, W_O 2, Q 3, K 4, W1 5, W2 6.
//
// Evaluation from scratch per point (transformer_layer.hpp): O(m·d² + n²·d + n·d² + n·d·k) for
// φ and as much for its gradient, in matrix–matrix products. Word sets of any size alike.
// No certified upper bound: softmax attention has no cheap Lipschitz bound tight enough to
// decide anything (docs/METHOD.md §5).
#include <memory>
#include <span>
#include <vector>

#include "core/types.hpp"
#include "models/shared/feature_map.hpp"
#include "models/transformer/transformer_layer.hpp"

namespace wordsens {

/// The layer of `spec`'s model (mhraf, block; raf, raf_relu, raf_v with a causal mask) with the
/// weights of `key`. Throws InputError for heads that do not divide d.
[[nodiscard]] TransformerLayer transformer_layer(const ModelSpec& spec, WeightKey key);

class TransformerFeatures final : public FeatureMap, public WordSets {
 public:
  TransformerFeatures(ModelSpec spec, WeightKey key);
  /// With a given layer (tests).
  TransformerFeatures(ModelSpec spec, TransformerLayer layer);

  [[nodiscard]] const ModelSpec& spec() const override { return spec_; }
  [[nodiscard]] Index feature_dim() const override { return spec_.n * spec_.d; }
  [[nodiscard]] Vector features(const Matrix& X) const override;
  [[nodiscard]] std::unique_ptr<PositionEvaluator> at_position(const Matrix& X,
                                                               Index position) const override;
  [[nodiscard]] std::unique_ptr<WordSetEvaluator> at_word_set(
      const Matrix& X, std::span<const Index> positions) const override;
  /// Every matrix of the layer under its role's name: W (raf's scores, when there are no keys),
  /// WQ, WK, WV, WO, W1, W2.
  [[nodiscard]] std::vector<NamedWeights> stored_weights(Index max_entries) const override;

  [[nodiscard]] const TransformerLayer& layer() const { return layer_; }

 private:
  ModelSpec spec_;
  TransformerLayer layer_;
};

}  // namespace wordsens
