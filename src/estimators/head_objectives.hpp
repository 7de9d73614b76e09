#pragma once
// The Δ objectives of the trained head (docs/METHOD.md §7). Both are squared affine functions of
// one linear read-out of the perturbed features, f(Δ) = (⟨φ(X^i(Δ)), v⟩ − target)², so their
// gradient is one pullback: ∇f = 2(⟨φ', v⟩ − target) · J_Δᵀ v.
//  * loss:  v = θ (the trained head),  target = y_Δ = −y;
//  * align: v = u / ‖u‖²,               target = −1, with u = φ(X) (finetune) or P⊥φ(X) (retrain).
#include <vector>

#include "core/types.hpp"
#include "estimators/ball_ascent.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {

struct ReadoutTarget {
  Vector v;
  double target = 0.0;
};

/// loss objective of a trained head θ for the changed label y_Δ.
[[nodiscard]] ReadoutTarget loss_target(const Vector& theta, double changed_label);

/// align objective for the direction u (throws std::runtime_error when u = 0).
[[nodiscard]] ReadoutTarget align_target(const Vector& u);

/// f(Δ) = (⟨φ(X^i(Δ)), v⟩ − target)² and its gradient, evaluated through `evaluator`. The
/// returned function keeps references to `evaluator` and `readout`: both must outlive it.
[[nodiscard]] BallObjective readout_objective(PositionEvaluator& evaluator,
                                              const ReadoutTarget& readout);

/// The same for a lockstep of ascents, ascent a with its own read-out *readouts[a], in one
/// batched call of the evaluator per round (PositionEvaluator::linear_readouts). Keeps references
/// to `evaluator` and the read-outs: they must outlive it.
[[nodiscard]] BallBatchObjective readout_objectives(PositionEvaluator& evaluator,
                                                    std::vector<const ReadoutTarget*> readouts);

}  // namespace wordsens
