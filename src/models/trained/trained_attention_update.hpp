#pragma once
// The position evaluator of the trained models (trained.hpp): φ(U^i(Δ)) and its pullback when
// word i alone moves, without the dense attention of the plain pass (trained_pass.hpp).
//
// Moving row i of U by δ moves row i of X by e = γ₀ ⊙ δ, hence q_i, k_i, v_i by e W_Q, e W_K,
// e W_V. For every other row j and head h only the score of word i changes, s'_jh =
// q_jh·k'_ih/√d_h, so the row keeps its leave-one-out log-normaliser λ_jh = log Σ_{l≠i} e^{s_jl}
// and its leave-one-out value mean ȳ_jh = Σ_{l≠i} e^{s_jl − λ_jh} v_lh, computed once per position
// (O(n²·d + n·d²)):
//   y'_jh = α_jh ȳ_jh + κ_jh v'_ih,   α = σ(λ − s'), κ = σ(s' − λ) = 1 − α,
//   M'_j  = b_O + Σ_h α_jh B_jh + κ_jh u'_h,   B_jh = ȳ_jh W_O,h,  u'_h = v'_ih W_O,h,
// W_O,h the rows of W_O of head h. Row i is recomputed in full. A point costs O(H·n·d + n·d + d²)
// for the attention (the plain pass: O(n²·d + n·d²)), forward or backward; the whole layer adds
// its feed-forward on every row, O(n·d·w), in matrix–matrix products.
//
// The products of a call's points with the layer's weights (B × d by d × d) and with the
// position's Q, K and V by head (B × n by n × d_h and B × d_h by d_h × n) take their fixed factor
// packed once (core/fixed_right_factor.hpp): the weights per model, Q, K and V per
// position.
#include <memory>
#include <vector>

#include "core/fixed_right_factor.hpp"
#include "core/types.hpp"
#include "models/shared/encoder_layer.hpp"
#include "models/shared/feature_map.hpp"
#include "models/trained/trained_pass.hpp"

namespace wordsens {

/// The attention's weights of a layer as the fixed right factors of the evaluator's products.
struct TrainedPackedWeights {
  explicit TrainedPackedWeights(const EncoderLayer& layer);
  FixedRightFactor query, key, value, output;  // e ↦ e·W_Q, e·W_K, e·W_V, y ↦ y·W_O
  FixedRightFactor query_t, key_t, value_t;  // g ↦ g·W_Qᵀ, g·W_Kᵀ, g·W_Vᵀ (the gradient's)
  std::vector<FixedRightFactor> output_t_by_head;  // g ↦ g·W_O,hᵀ, W_O,h the rows of head h
};

/// The evaluator of word `position` of U for the trained model of `part` with weights `layer`
/// and the same weights `packed` (both must outlive it).
[[nodiscard]] std::unique_ptr<PositionEvaluator> make_trained_position_evaluator(
    const EncoderLayer& layer, const TrainedPackedWeights& packed, TrainedPart part,
    const Matrix& U, Index position);

}  // namespace wordsens
