#pragma once
// rf with the exact marginal sampler (issue 8 item 7): for word sensitivity over a position set
// P, only a = V vec(X) and the blocks V_i (i ∈ P) enter the estimate, so only those are drawn.
//
// Why the joint law is exact. With V ∈ R^{k×D} iid N(0, 1/D) and x_j the rows of X,
//   a = Σ_{i∈P} V_i x_i + r,   r = Σ_{j∉P} V_j x_j.
// r is a linear function of the blocks (V_j)_{j∉P} alone, which are independent of (V_i)_{i∈P};
// each row of r is a sum of independent N(0, ‖x_j‖²/D) terms and different rows use disjoint
// entries, so r ~ N(0, σ² I_k) with σ² = Σ_{j∉P} ‖x_j‖²/D, independent of (V_i)_{i∈P}. Hence
//   (V_P, Σ_{i∈P} V_i x_i + σ z),  z ~ N(0, I_k) independent of V_P,
// has exactly the law of (V_P, a) under the full sampler. Every quantity WS computes at a
// position i ∈ P — φ(X^i(Δ)) = ϕ(a + V_i Δ), its pullback, the guided start from V_i — is a
// function of (a, V_i), so S (and i*, Δ*) has the same law under both samplers.
//
// Weights: V_i are the very same GaussianMatrix windows as RandomFeatures' (weights matrix 0 of
// the task), bitwise; z is row 0 of weights matrix 1 of the task, which rf never uses. A
// trial costs O(k·d·|P|) normals and flops instead of O(k·D), and memory O(k·d).
//
// What it cannot give:
//  * at_position(X, i) for i ∉ P: V_i is not drawn (and would not be independent of z); throws.
//  * S_upper = max over all n words of ‖V_i‖₂·√d needs every block, i.e. the full O(k·D) pass the
//    sampler exists to avoid, so sensitivity_upper_bound returns nullopt (no S_upper reported;
//    use rf-sampling = full for it).
//  * Several samples (gen's gram / transpose_apply): the residuals of different samples are
//    correlated through the undrawn blocks, so one z cannot serve them; both throw.
// `features(X')` is ϕ(Σ_{i∈P} V_i x'_i + σ(X') z): for X' = X^i(Δ) with i ∈ P it equals the
// evaluator's value (σ does not depend on the rows in P), which is what certification needs.
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "core/gaussian.hpp"
#include "models/block_norm.hpp"
#include "models/feature_map.hpp"

namespace wordsens {

class MarginalRandomFeatures final : public FeatureMap {
 public:
  /// Rows of V_P generated and multiplied at a time.
  static constexpr Index kRowBlock = 1024;

  /// `positions`: P, distinct, each in [0, n), non-empty (e.g. PositionSet::resolve's result).
  MarginalRandomFeatures(ModelSpec spec, WeightKey key, std::span<const Index> positions);

  [[nodiscard]] const ModelSpec& spec() const override { return spec_; }
  [[nodiscard]] Index feature_dim() const override { return spec_.k; }
  [[nodiscard]] Vector features(const Matrix& X) const override;
  /// Throws std::out_of_range for a position outside P.
  [[nodiscard]] std::unique_ptr<PositionEvaluator> at_position(const Matrix& X,
                                                               Index position) const override;
  /// The top right-singular vector of V_i (i ∈ P), as RandomFeatures gives.
  [[nodiscard]] std::optional<Vector> guided_direction(const Matrix& X,
                                                       Index position) const override;
  /// nullopt: see the header comment.
  [[nodiscard]] std::optional<double> sensitivity_upper_bound(const Matrix& X) const override;
  [[nodiscard]] Matrix gram(std::span<const Matrix> samples) const override;
  [[nodiscard]] Matrix transpose_apply(std::span<const Matrix> samples,
                                       const Matrix& C) const override;

  [[nodiscard]] const std::vector<Index>& positions() const { return positions_; }
  /// Σ_{i∈P} V_i x_i + σ(X) z (cached for the latest X, like RandomFeatures::preactivation).
  [[nodiscard]] Vector preactivation(const Matrix& X) const;
  /// V_i for i ∈ P: bitwise RandomFeatures::word_block(i) of the same key.
  [[nodiscard]] Matrix word_block(Index position) const;
  /// z ~ N(0, I_k), the standardised residual.
  [[nodiscard]] Vector residual_direction() const;
  /// σ(X) = sqrt(Σ_{j∉P} ‖x_j‖² / D).
  [[nodiscard]] double residual_scale(const Matrix& X) const;

 private:
  void check_sample(const Matrix& X) const;
  void check_position(Index position) const;

  ModelSpec spec_;
  GaussianMatrix V_;  // weights matrix 0: the full sampler's V
  GaussianMatrix Z_;  // weights matrix 1: z is its row 0
  std::vector<Index> positions_;
  std::vector<bool> in_p_;
  mutable std::mutex cache_mutex_;
  mutable Matrix cached_X_;
  mutable Vector cached_a_;
};

}  // namespace wordsens
