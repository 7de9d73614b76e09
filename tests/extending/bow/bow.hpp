#pragma once
// bow, the bag-of-words random features: a model kept for a test only
// (tests/extending/add_a_model.py puts it into a copy of the sources by docs/EXTENDING.md's
// recipe and checks that the suite then runs, records, checks and draws it).
//
//   φ(X) = ϕ(V s(X)),  s(X) = (x_1 + … + x_n)/√n,  V ∈ R^{k×d} iid N(0, 2/d),
//
// V is weight matrix 0 of the task. Every word enters through the sum, so moving word i by Δ
// moves s by Δ/√n wherever i is: ‖φ(X^i(Δ)) − φ(X)‖ ≤ ‖V‖₂·√d/√n (ϕ 1-Lipschitz), S ~ 1/√n like
// rf's. Its costs sit in its own files (a family of one model).
#include "models/shared/feature_map.hpp"
#include "models/shared/model_costs.hpp"

namespace wordsens {

class BagOfWordsFeatures final : public FeatureMap, public WordSets {
 public:
  BagOfWordsFeatures(ModelSpec spec, WeightKey key);

  [[nodiscard]] const ModelSpec& spec() const override { return spec_; }
  [[nodiscard]] Index feature_dim() const override { return spec_.k; }
  [[nodiscard]] Vector features(const Matrix& X) const override;
  /// a = V s(X) precomputed; each evaluation then costs O(k·d): ϕ(a + (V/√n)Δ).
  [[nodiscard]] std::unique_ptr<PositionEvaluator> at_position(const Matrix& X,
                                                               Index position) const override;
  /// ϕ(a + (V/√n) Σ_j δ_j): the first-layer word-set evaluator rf uses, every word's block V/√n.
  [[nodiscard]] std::unique_ptr<WordSetEvaluator> at_word_set(
      const Matrix& X, std::span<const Index> positions) const override;
  /// V, or nothing above `max_entries` numbers.
  [[nodiscard]] std::vector<NamedWeights> stored_weights(Index max_entries) const override;

 private:
  [[nodiscard]] Vector preactivation(const Matrix& X) const;  // V s(X)

  ModelSpec spec_;
  Matrix V_;
  Matrix block_;  // V/√n: how a move of any one word moves the preactivation
};

/// bow's prices: rf's arithmetic on one k × d block (not calibrated: a test's model).
class BowCosts final : public ModelCosts {
 public:
  [[nodiscard]] double evaluation(const CostShape& s) const override;
  [[nodiscard]] double features(const CostShape& s) const override;
  [[nodiscard]] double weights(const CostShape& s) const override;
  [[nodiscard]] double position_setup(const CostShape& s) const override;
  [[nodiscard]] double sample_setup(const CostShape& s) const override;
  [[nodiscard]] double set_evaluation(const CostShape& s, double words) const override;
  [[nodiscard]] double set_setup(const CostShape& s, const CostOptions& o,
                                 double words) const override;
  [[nodiscard]] double single_point_evaluation(const CostShape& s) const override;
  [[nodiscard]] double multi_word_growth(double words) const override;
  [[nodiscard]] double ws_memory(const CostShape& s, const CostOptions& o,
                                 const SearchShape& q) const override;
};

}  // namespace wordsens
