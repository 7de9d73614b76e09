#pragma once
// The evaluators of several changed words (WordSets::at_word_set) that rf and drf share, and
// the check of a word set every model makes. Attention's: models/attention/attention_word_set.hpp.
#include <memory>
#include <span>
#include <vector>

#include "core/types.hpp"
#include "models/shared/feature_map.hpp"

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

}  // namespace wordsens
