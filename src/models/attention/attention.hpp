#pragma once
// raf and raf_relu (docs/METHOD.md §2): φ(X) = vec(A X) with A = rownorm(X W Xᵀ/√d), W ∈ R^{d×d}
// iid N(0, 1/d) (weight matrix 0 of the task); rownorm is softmax (raf) or the row-normalised ReLU
// A_jl = ReLU(s_jl)/Σ_m ReLU(s_jm), an all-zero row giving zero (raf_relu).
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/types.hpp"
#include "models/shared/feature_map.hpp"
#include "models/shared/score_rows.hpp"

namespace wordsens {

struct AttentionSampleProducts;  // models/attention/attention_batch.hpp

class AttentionFeatures final : public FeatureMap, public WordSets, public GuidedStarts {
 public:
  AttentionFeatures(ModelSpec spec, WeightKey key, AttentionKind kind);

  [[nodiscard]] const ModelSpec& spec() const override { return spec_; }
  [[nodiscard]] Index feature_dim() const override { return spec_.n * spec_.d; }
  [[nodiscard]] Vector features(const Matrix& X) const override;
  /// O(n²·d + n·d²) precompute; then O(n·d + d²) per features_at / pullback
  /// (attention_evaluator.cpp).
  [[nodiscard]] std::unique_ptr<PositionEvaluator> at_position(const Matrix& X,
                                                               Index position) const override;
  /// One batched objective over all the group's positions (attention_batch.hpp).
  [[nodiscard]] std::unique_ptr<PositionGroup> at_positions(
      const Matrix& X, std::span<const Index> positions) const override;
  /// ⌈points / per_position⌉: the positions share the sample's products, so grouping makes the
  /// batches wide enough for matrix–matrix products when each position runs few ascents.
  [[nodiscard]] Index positions_per_group(Index points, Index per_position) const override;
  /// Incremental in the m moved rows and columns of the scores: O(n·m·d + m·d²) per point and
  /// its gradient, after an O(n²·d) set-up; the sample's X W, X Wᵀ and X W Xᵀ are shared with
  /// the single-word evaluators (word_set.hpp).
  [[nodiscard]] std::unique_ptr<WordSetEvaluator> at_word_set(
      const Matrix& X, std::span<const Index> positions) const override;
  /// Wᵀ Σ_j x_j: the direction that raises every query's score on the perturbed word.
  [[nodiscard]] std::optional<Vector> guided_direction(const Matrix& X,
                                                       Index position) const override;
  /// guided_direction's, then the top eigenvector v of (W + Wᵀ)/2 signed so that ⟨v, x_i⟩ ≥ 0:
  /// moving word i along v raises its score with itself, x_i'ᵀ W x_i' = x_i'ᵀ ((W + Wᵀ)/2) x_i',
  /// most. On raf instances at d = 16 … 192 with all positions examined it raised S in 15 of 64
  /// (by up to 4 %, raf_relu up to 8 %) where one more random sphere start raised it in 5.
  [[nodiscard]] std::vector<Vector> guided_directions(const Matrix& X,
                                                      Index position) const override;

  /// raf_relu: the floor starts of models/attention/relu_floor.hpp (only one other word keeps a
  /// positive score in row `position`), while n − 1 < d; raf: none (softmax keeps every score
  /// positive).
  [[nodiscard]] std::vector<Vector> guided_points(const Matrix& X, Index position) const override;

  [[nodiscard]] const Matrix& W() const { return W_; }
  /// W (d × d).
  [[nodiscard]] std::vector<NamedWeights> stored_weights(Index max_entries) const override;
  [[nodiscard]] AttentionKind kind() const { return kind_; }
  /// φ(X) for an explicit W (tests construct W to produce huge scores).
  [[nodiscard]] static Vector features_with(const Matrix& X, const Matrix& W, AttentionKind kind);

 private:
  [[nodiscard]] const Vector& symmetric_top_eigenvector() const;
  /// X W, X Wᵀ and X W Xᵀ of the latest sample: every position's evaluator shares them.
  [[nodiscard]] std::shared_ptr<const AttentionSampleProducts> sample_products(
      const Matrix& X) const;

  ModelSpec spec_;
  AttentionKind kind_;
  Matrix W_;
  // The top eigenvector of (W + Wᵀ)/2, computed on first use (O(d³), only WS searches need it).
  mutable std::mutex eigen_mutex_;
  mutable std::optional<Vector> symmetric_top_;
  mutable std::mutex products_mutex_;
  mutable Matrix products_sample_;
  mutable std::shared_ptr<const AttentionSampleProducts> products_;
  // The keys' Gram matrix of the floor starts, for the sample of `floor_products_` (O(n²·d),
  // shared by the positions of a search).
  mutable std::mutex floor_mutex_;
  mutable std::shared_ptr<const AttentionSampleProducts> floor_products_;
  mutable std::shared_ptr<const Matrix> floor_gram_;
};

/// The fast evaluator for an explicit W (used by AttentionFeatures::at_position and by tests).
[[nodiscard]] std::unique_ptr<PositionEvaluator> make_attention_evaluator(const Matrix& X,
                                                                          const Matrix& W,
                                                                          AttentionKind kind,
                                                                          Index position);

}  // namespace wordsens
