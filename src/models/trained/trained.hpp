#pragma once
// The trained family (docs/METHOD.md §2, "Trained layers"): one layer ℓ of a pretrained encoder
// with its trained weights (models/shared/encoder_layer.hpp), on the hidden states that enter it,
// and its random twin:
//
//   trained_attn  φ(U) = vec(MHA(γ₀ ⊙ U + β₀)), the layer's multi-head self-attention with
//                      its W_Q, W_K, W_V, W_O and biases (H heads, scaling 1/√(d/H));
//   trained_layer      φ(U) = vec(LN₂(H + W₂ GELU(W₁ H + b₁) + b₂)), H = LN₁(X + MHA(X)),
//                      X = γ₀ ⊙ U + β₀: the whole post-LN layer, as the encoder computes it;
//   twin_attn,    the same maps with each trained matrix (W_Q, W_K, W_V, W_O, W₁, W₂)
//   twin_layer         redrawn i.i.d. N(0, σ²), σ = ‖W‖_F/√(rows·cols), from the task's weight
//                      stream (so E‖G‖²_F = ‖W‖²_F), the biases and LayerNorms kept: what the
//                      architecture does at the trained scale, without what training did.
//
// U is the previous LayerNorm's normalised rows (norm √d): the sample's rows as the suite gives
// them, so that the word that moves is the layer's own input row inside the ball of its own norm
// (encoder_layer.hpp). Evaluation (trained_pass.hpp): a word's move changes its rows of Q, K and
// V; the attention of the other rows is updated from leave-one-out sums (trained_attention_update
// .hpp) and, for the whole layer, the feed-forward runs on every row. No certified upper bound.
#include <memory>
#include <span>
#include <vector>

#include "core/types.hpp"
#include "models/shared/encoder_layer.hpp"
#include "models/shared/feature_map.hpp"
#include "models/trained/trained_attention_update.hpp"
#include "models/trained/trained_pass.hpp"

namespace wordsens {

/// The twin of `trained`: its matrices redrawn from the weight stream of `key`, everything else
/// kept.
[[nodiscard]] EncoderLayer random_twin(const EncoderLayer& trained, WeightKey key);

class TrainedFeatures final : public FeatureMap, public WordSets {
 public:
  TrainedFeatures(ModelSpec spec, std::shared_ptr<const EncoderLayer> layer, TrainedPart part);

  [[nodiscard]] const ModelSpec& spec() const override { return spec_; }
  [[nodiscard]] Index feature_dim() const override { return spec_.n * spec_.d; }
  [[nodiscard]] Vector features(const Matrix& X) const override;
  [[nodiscard]] std::unique_ptr<PositionEvaluator> at_position(const Matrix& X,
                                                               Index position) const override;
  [[nodiscard]] std::unique_ptr<WordSetEvaluator> at_word_set(
      const Matrix& X, std::span<const Index> positions) const override;
  /// Every array φ depends on, under the names the twin of the analysis reads
  /// (analysis/wordsens_analysis/twins/model_pieces.py): WQ, bQ, WK, bK, WV, bV, WO, bO, gamma0,
  /// beta0, heads and epsilon (1 × 1), and for the whole layer gamma1, beta1, W1, b1, W2, b2,
  /// gamma2, beta2.
  [[nodiscard]] std::vector<NamedWeights> stored_weights(Index max_entries) const override;

  [[nodiscard]] const EncoderLayer& layer() const { return *layer_; }
  [[nodiscard]] TrainedPart part() const { return part_; }

 private:
  ModelSpec spec_;
  std::shared_ptr<const EncoderLayer> layer_;
  std::shared_ptr<const TrainedPackedWeights> packed_;  // layer_'s, packed once for its evaluators
  TrainedPart part_;
};

/// The trained family's model of `spec` (trained_attn, trained_layer and their twins), with
/// spec.encoder's weights (or their twin drawn from `key`). Throws InputError when the spec does
/// not fit the encoder (trained_problem).
[[nodiscard]] std::unique_ptr<FeatureMap> make_trained_features(const ModelSpec& spec,
                                                                WeightKey key);

/// Why a trained model cannot be built for `spec`, in one line: no encoder weights, d other than
/// the encoder's, a causal mask (the encoder attends both ways).
[[nodiscard]] std::optional<std::string> trained_problem(const ModelSpec& spec);

}  // namespace wordsens
