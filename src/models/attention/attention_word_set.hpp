#pragma once
// Attention's evaluators of several changed words (raf and raf_relu; WordSets::at_word_set).
#include <memory>
#include <vector>

#include "core/types.hpp"
#include "models/attention/attention.hpp"
#include "models/shared/feature_map.hpp"
#include "models/shared/word_set.hpp"

namespace wordsens {

/// raf and raf_relu, incrementally (attention_word_set.cpp): only the m rows and m columns of
/// the scores that belong to the moved words change, so a point costs O(n·m·d + m·d²) for f and
/// as much again for ∇f, after an O(n²·d) set-up. `products` are the sample's X W, X Wᵀ and
/// X W Xᵀ when the caller has them (shared by every set of one sample), else computed here.
[[nodiscard]] std::unique_ptr<WordSetEvaluator> make_attention_word_set(
    const Matrix& X, const Matrix& W, AttentionKind kind, std::vector<Index> positions,
    std::shared_ptr<const AttentionSampleProducts> products = nullptr);

/// raf and raf_relu from scratch, O(n²·d + n·d²) per point: φ(X^M(Δ)) recomputed, and ∇f by
/// back-propagation through A X, the row normalisation and the scores X W Xᵀ/√d. The reference
/// the incremental evaluator is tested and benchmarked against. With a `projection` P (d × d,
/// copied), φ = vec(A X P): raf_v's evaluator (value_attention.hpp).
[[nodiscard]] std::unique_ptr<WordSetEvaluator> make_attention_word_set_from_scratch(
    const Matrix& X, const Matrix& W, AttentionKind kind, std::vector<Index> positions,
    const Matrix* projection = nullptr);

}  // namespace wordsens
