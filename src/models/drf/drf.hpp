#pragma once
// drf: h_1 = ϕ(V_1 vec(X)), h_l = ϕ(V_l h_{l−1}), φ = h_L; V_1 ∈ R^{k×D} iid N(0, 2/D),
// V_l ∈ R^{k×k} iid N(0, 2/k); V_l is weight matrix l − 1 of the task.
//
// The layers are kept in memory: 8·(k·D + (L−1)·k²) bytes, refused above kMaxWeightBytes.
//
// The certified bound (S_upper's numerator):
//
//   sup_i sup_{‖Δ‖≤√d} ‖φ(X^i(Δ)) − φ(X)‖ ≤ U := max_i U_{1,i} · √d · ∏_{l=2..L} U_l,
//   U_{1,i} ≥ ‖V_{1,i}‖₂ (V_{1,i} = the k × d column block of word i in V_1), U_l ≥ ‖V_l‖₂.
//
// Derivation. X^i(Δ) differs from X in word i only, so vec(X^i(Δ)) − vec(X) is Δ in the
// entries [i·d, (i+1)·d) and zero elsewhere, and the first pre-activations differ by
// z'_1 − z_1 = V_1(vec(X^i(Δ)) − vec(X)) = V_{1,i}Δ. ϕ (ReLU or tanh) acts entrywise and is
// 1-Lipschitz, |ϕ(a) − ϕ(b)| ≤ |a − b|, hence ‖ϕ(a) − ϕ(b)‖₂ ≤ ‖a − b‖₂ for vectors, and
//   ‖h'_1 − h_1‖ ≤ ‖V_{1,i}Δ‖ ≤ ‖V_{1,i}‖₂·‖Δ‖ ≤ ‖V_{1,i}‖₂·√d          (‖Δ‖ ≤ √d),
//   ‖h'_l − h_l‖ = ‖ϕ(V_l h'_{l−1}) − ϕ(V_l h_{l−1})‖ ≤ ‖V_l‖₂·‖h'_{l−1} − h_{l−1}‖   (l ≥ 2).
// By induction ‖φ(X^i(Δ)) − φ(X)‖ = ‖h'_L − h_L‖ ≤ ‖V_{1,i}‖₂·√d·∏_{l≥2}‖V_l‖₂ for every i and
// every Δ in the ball; the maximum over i gives U. The bound is on the map with the stored
// weights in exact arithmetic (as S is the value of that map at the witness).
//
// Size. ‖V_{1,i}‖₂ ≈ √(2/D)(√k + √d), ‖V_l‖₂ ≈ 2√2 (square Gaussian), and ‖φ(X)‖ ≈ √k for ReLU
// (He scaling: E h² = 1 per unit), so U/‖φ(X)‖ ≈ √(2/n)·(1 + √(d/k))·(2√2)^{L−1}: ∝ 1/√n at
// k = D, loose by the constant (2√2)^{L−1} (ReLU halves the energy each layer, which the
// operator norms cannot see).
//
// Certification (models/bounds/spectral_certificate.hpp): every norm from its double Gram matrix
// (the k × d blocks: d × d; the k × k layers: k × k), whose rounding error γ·‖·‖_F² is added, and
// λ_max of the computed Gram matrix certified by a Cholesky factorisation of μI − Ĝ with μ just
// above a Lanczos estimate — no full eigen-decomposition (O(k³) with a large constant at k =
// 3840); the Gram matrix costs k³ flops and the factorisation k³/3. The products U_{1,i}·√d·∏U_l
// are rounded up. Computed once per model (independent of X) and cached.
#include <mutex>
#include <optional>
#include <vector>

#include "models/shared/feature_map.hpp"

namespace wordsens {

class DeepRandomFeatures final : public FeatureMap,
                                 public WordSets,
                                 public CertifiedBound,
                                 public GuidedStarts {
 public:
  /// 8 GiB: above this, the constructor throws InputError.
  static constexpr double kMaxWeightBytes = 8.0 * 1024 * 1024 * 1024;

  /// Bytes the layers take: 8·(k·D + (L−1)·k²).
  [[nodiscard]] static double weight_bytes(const ModelSpec& spec);
  /// "drf at n=…, d=…, k=…, L=… needs more than 8 GiB of weights" above kMaxWeightBytes.
  [[nodiscard]] static std::optional<std::string> size_problem(const ModelSpec& spec);

  DeepRandomFeatures(ModelSpec spec, WeightKey key);

  [[nodiscard]] const ModelSpec& spec() const override { return spec_; }
  [[nodiscard]] Index feature_dim() const override { return spec_.k; }
  [[nodiscard]] Vector features(const Matrix& X) const override;
  /// Precomputes a_1 = V_1 vec(X); each evaluation then costs O(k·d + (L−1)·k²).
  [[nodiscard]] std::unique_ptr<PositionEvaluator> at_position(const Matrix& X,
                                                               Index position) const override;
  /// The positions' evaluators, whose batched objective runs the points of all of them through
  /// each hidden layer at once.
  [[nodiscard]] std::unique_ptr<PositionGroup> at_positions(
      const Matrix& X, std::span<const Index> positions) const override;
  /// Enough positions that a call has about `points` points (`per_position` each).
  [[nodiscard]] Index positions_per_group(Index points, Index per_position) const override;
  /// a_1 = V_1 vec(X) and V_1's blocks of the set's words: O(m·k·d + (L−1)·k²) per point.
  [[nodiscard]] std::unique_ptr<WordSetEvaluator> at_word_set(
      const Matrix& X, std::span<const Index> positions) const override;
  /// max over the sets M of U_{1,M}·√(m·d)·∏_{l≥2} U_l, U_{1,M} ≥ ‖V_{1,M}‖₂ (the k × m·d columns
  /// of the set's words) certified like U_{1,i}: the derivation above with V_{1,i}Δ replaced by
  /// Σ_j V_{1,i_j}δ_j = V_{1,M}Δ, ‖Δ‖ ≤ √(m·d).
  [[nodiscard]] std::optional<SensitivityBound> word_set_upper_bound(
      const Matrix& X, std::span<const std::vector<Index>> sets) const override;
  /// The top right-singular vector of V_1's column block of word i.
  [[nodiscard]] std::optional<Vector> guided_direction(const Matrix& X,
                                                       Index position) const override;
  /// U (header comment), scope all_positions; computed on the first call and cached.
  [[nodiscard]] std::optional<SensitivityBound> sensitivity_upper_bound(
      const Matrix& X) const override;

  /// The certified factors of U: U_{1,i} for every word i, and U_l for l = 2..L (index l − 2).
  struct NormBounds {
    std::vector<double> first_layer_blocks;
    std::vector<double> hidden_layers;
  };
  [[nodiscard]] const NormBounds& norm_bounds() const;

  [[nodiscard]] const std::vector<Matrix>& layers() const { return layers_; }
  /// V1 … VL, or none when all of them together exceed `max_entries`.
  [[nodiscard]] std::vector<NamedWeights> stored_weights(Index max_entries) const override;

 private:
  ModelSpec spec_;
  WeightKey key_;
  std::vector<Matrix> layers_;  // V_1 … V_L
  // a_1 = V_1 vec(X) of the latest sample (compared bitwise): at_position for every word of one
  // text then reads V_1 once, not n times.
  mutable std::mutex cache_mutex_;
  mutable Matrix cached_X_;
  mutable Vector cached_a1_;
  [[nodiscard]] Vector first_preactivation(const Matrix& X) const;
  mutable std::mutex bounds_mutex_;
  mutable std::optional<NormBounds> norm_bounds_;
};

}  // namespace wordsens
