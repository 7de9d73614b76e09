#pragma once
// The evaluators of several changed words (FeatureMap::at_word_set), shared by the models, and
// the certified bound of a set of column blocks.
#include <memory>
#include <span>
#include <vector>

#include "core/types.hpp"
#include "models/attention.hpp"
#include "models/feature_map.hpp"

namespace wordsens {

/// Throws std::invalid_argument unless `positions` are distinct words of a text of n words and
/// there is at least one.
void check_word_set(std::span<const Index> positions, Index n);

/// rf and drf: h_1 = ϕ(a_1 + Σ_j B_j δ_j), h_l = ϕ(V_l h_{l−1}) for the `hidden` layers V_2 …
/// V_L (none for rf), φ = h_L; B_j is the first layer's k × d column block of word i_j.
/// `hidden` must outlive the evaluator.
[[nodiscard]] std::unique_ptr<WordSetEvaluator> make_first_layer_word_set(
    Activation act, std::span<const Matrix> hidden, std::vector<Index> positions, Vector a1,
    std::vector<Matrix> blocks);

/// raf and raf_relu, incrementally (attention_word_set.cpp): only the m rows and m columns of
/// the scores that belong to the moved words change, so a point costs O(n·m·d + m·d²) for f and
/// as much again for ∇f, after an O(n²·d) set-up. `products` are the sample's X W, X Wᵀ and
/// X W Xᵀ when the caller has them (shared by every set of one sample), else computed here.
[[nodiscard]] std::unique_ptr<WordSetEvaluator> make_attention_word_set(
    const Matrix& X, const Matrix& W, AttentionKind kind, std::vector<Index> positions,
    std::shared_ptr<const AttentionSampleProducts> products = nullptr);

/// raf and raf_relu from scratch, O(n²·d + n·d²) per point: φ(X^M(Δ)) recomputed, and ∇f by
/// back-propagation through A X, the row normalisation and the scores X W Xᵀ/√d. The reference
/// the incremental evaluator is tested and benchmarked against.
[[nodiscard]] std::unique_ptr<WordSetEvaluator> make_attention_word_set_from_scratch(
    const Matrix& X, const Matrix& W, AttentionKind kind, std::vector<Index> positions);

}  // namespace wordsens
