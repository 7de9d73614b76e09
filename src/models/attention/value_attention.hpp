#pragma once
// raf_v: raf with random value and output projections (docs/METHOD.md §2),
//
//   φ(X) = vec(A X W_V W_O),  A = softmax(X W Xᵀ/√d),  W, W_V, W_O ∈ R^{d×d} iid N(0, 1/d),
//
// W, W_V, W_O being weight matrices 0, 1, 2 of the task. W is raf's (the same matrix of the same
// stream), so with W_V = W_O = I raf_v is raf exactly (value_attention_test). Each projection
// keeps a row's norm in expectation (E‖x W_V‖² = ‖x‖²), so φ has raf's scale.
//
// Evaluation: raf's evaluators give Y' = A'X' and pull a cotangent back through it in
// O(n·d + d²) (attention_evaluator.cpp); the projection P = W_V W_O (d × d, formed once) is one
// n × d by d × d product per point and one per pullback (C Pᵀ), O(n·d²), which dominates. Several
// changed words: the from-scratch word-set evaluator with P (attention_word_set.hpp), O(n²·d +
// n·d²) per point, the same order.
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/types.hpp"
#include "models/attention/attention.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {

class ValueAttentionFeatures final : public FeatureMap, public WordSets, public GuidedStarts {
 public:
  ValueAttentionFeatures(ModelSpec spec, WeightKey key);
  /// With given projections (tests: the identity gives raf).
  ValueAttentionFeatures(ModelSpec spec, WeightKey key, Matrix value, Matrix output);

  [[nodiscard]] const ModelSpec& spec() const override { return spec_; }
  [[nodiscard]] Index feature_dim() const override { return spec_.n * spec_.d; }
  [[nodiscard]] Vector features(const Matrix& X) const override;
  /// raf's evaluator of word `position`, its features and cotangents projected by P.
  [[nodiscard]] std::unique_ptr<PositionEvaluator> at_position(const Matrix& X,
                                                               Index position) const override;
  [[nodiscard]] std::unique_ptr<WordSetEvaluator> at_word_set(
      const Matrix& X, std::span<const Index> positions) const override;
  /// raf's starting directions (they raise the perturbed word's scores; P does not change A).
  [[nodiscard]] std::optional<Vector> guided_direction(const Matrix& X,
                                                       Index position) const override;
  [[nodiscard]] std::vector<Vector> guided_directions(const Matrix& X,
                                                      Index position) const override;
  /// W, WV (W_V) and WO (W_O).
  [[nodiscard]] std::vector<NamedWeights> stored_weights(Index max_entries) const override;

  /// P = W_V W_O.
  [[nodiscard]] const Matrix& projection() const { return projection_; }

 private:
  ModelSpec spec_;
  AttentionFeatures attention_;  // raf with the task's W
  Matrix value_, output_, projection_;
};

}  // namespace wordsens
