#pragma once
// The per-word evaluator of rf, shared by the full and the marginal sampler: both reduce to
// φ(X^i(Δ)) = ϕ(a + BΔ) with a = V vec(X) (however it was drawn) and B = V_i.
#include <memory>

#include "models/shared/feature_map.hpp"

namespace wordsens {

/// O(k·d) per call: features_at is one k × d matrix–vector product, pullback is
/// Bᵀ(c ⊙ ϕ'(a + BΔ)).
[[nodiscard]] std::unique_ptr<PositionEvaluator> make_rf_evaluator(Activation activation,
                                                                   Index position, Vector a,
                                                                   Matrix B);

}  // namespace wordsens
