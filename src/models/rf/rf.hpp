#pragma once
// rf: φ(X) = ϕ(V vec(X)), V ∈ R^{k×D} iid N(0, 1/D), weight matrix 0 of the task.
//
// V is never stored whole: it is a GaussianMatrix whose windows are regenerated on demand with
// identical bits. `features` streams column blocks of V (512 × d); the evaluator of word i
// keeps a = V vec(X) (k numbers) and B = V_i (the k × d column block of word i), so memory is
// O(k·d + D) and each evaluation costs O(k·d).
//
// The certified bound (S_upper's numerator). ϕ is 1-Lipschitz (ReLU, tanh) and X^i(Δ) changes
// only word i, so ‖φ(X^i(Δ)) − φ(X)‖ ≤ ‖V_i Δ‖ ≤ ‖V_i‖₂·√d for ‖Δ‖ ≤ √d, and
//   U = max_i U_i · √d (rounded up),   U_i ≥ ‖V_i‖₂ certified,
// U_i from the double spectrum of V_i where the guided start already computed it (its Gram
// matrix, Cholesky-certified: block_norm.cpp), else from a single-precision Gram matrix with all
// rounding terms (models/bounds/float_gram.hpp; ≈ 6e-4 looser at d = 768). Independent of X; cached
// per word. recompute_plain serves the plain features of its samples (a_s = Σ_i V_i x_{s,i}, summed
// word by word) and the missing U_i from ONE pass over the column blocks of V: generating V
// (k·D normals, ≈ 50 s at n = 150, d = 768) is then paid once for both.
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/gaussian.hpp"
#include "models/bounds/block_norm.hpp"
#include "models/shared/feature_map.hpp"
#include "models/shared/sample_cache.hpp"

namespace wordsens {

class RandomFeatures final : public FeatureMap,
                             public WordSets,
                             public CertifiedBound,
                             public GuidedStarts,
                             public StreamedFeatures {
 public:
  /// Rows of V generated and multiplied at a time (memory kRowBlock·D doubles).
  static constexpr Index kRowBlock = 128;

  RandomFeatures(ModelSpec spec, WeightKey key);

  [[nodiscard]] const ModelSpec& spec() const override { return spec_; }
  [[nodiscard]] Index feature_dim() const override { return spec_.k; }
  [[nodiscard]] Vector features(const Matrix& X) const override;
  [[nodiscard]] std::unique_ptr<PositionEvaluator> at_position(const Matrix& X,
                                                               Index position) const override;
  /// The top right-singular vector of V_i: the direction that moves the pre-activations most.
  [[nodiscard]] std::optional<Vector> guided_direction(const Matrix& X,
                                                       Index position) const override;
  /// a = V vec(X) and the set's blocks V_{i_j} (m·k·d numbers): O(m·k·d) per point.
  [[nodiscard]] std::unique_ptr<WordSetEvaluator> at_word_set(
      const Matrix& X, std::span<const Index> positions) const override;
  /// max over the sets M of U_M·√(m·d), U_M ≥ ‖[V_{i_1} … V_{i_m}]‖₂ certified (single-precision
  /// Gram of the k × m·d columns, streamed): ‖Σ_j V_{i_j}δ_j‖ ≤ ‖V_M‖₂‖Δ‖ and ‖Δ‖ ≤ √(m·d).
  [[nodiscard]] std::optional<SensitivityBound> word_set_upper_bound(
      const Matrix& X, std::span<const std::vector<Index>> sets) const override;
  /// max_i U_i·√d with U_i ≥ ‖V_i‖₂ certified (header comment), scope all_positions.
  /// Independent of X; the per-word bounds are cached, so later calls are free.
  [[nodiscard]] std::optional<SensitivityBound> sensitivity_upper_bound(
      const Matrix& X) const override;
  /// One pass over the column blocks of V for the features of every sample and, when
  /// `want_bound`, the word bounds not yet known (header comment).
  [[nodiscard]] PlainRecomputation recompute_plain(std::span<const Matrix> samples,
                                                   bool want_bound) const override;
  [[nodiscard]] Matrix gram(std::span<const Matrix> samples) const override;
  [[nodiscard]] Matrix transpose_apply(std::span<const Matrix> samples,
                                       const Matrix& C) const override;

  /// V (k × D), generated whole.
  [[nodiscard]] std::vector<NamedWeights> stored_weights(Index max_entries) const override;

  /// The weights (for tests: any window of V).
  [[nodiscard]] const GaussianMatrix& weights() const { return V_; }
  /// V vec(X), streamed by column blocks of V (a pass over all of V: k·D normals, each 512 × d
  /// chunk used while in cache). The result for the latest X is cached, so features(X) followed
  /// by at_position(X, i) for every i costs one pass, not n + 1.
  [[nodiscard]] Vector preactivation(const Matrix& X) const;
  /// V_i, the k × d column block of word i.
  [[nodiscard]] Matrix word_block(Index position) const;
  /// U_i ≥ ‖V_i‖₂, certified: the double spectrum's bound if word i's spectrum is cached (tight
  /// to ~1e-8 relative), else the single-precision one (computed and cached on first use).
  [[nodiscard]] double word_block_norm_bound(Index position) const;
  /// Rows of V generated at a time by the column-block pass (preactivation, recompute_plain).
  static constexpr Index kPassRows = 512;
  /// Up to this many samples the pass multiplies without packing (rf.cpp).
  static constexpr Index kFewSamples = 8;

 private:
  /// Calls consume(r0, Φ_b) with Φ_b = ϕ(X_all V_bᵀ) (M × h) for each row block V_b of V.
  void for_each_feature_block(
      std::span<const Matrix> samples,
      const std::function<void(Index r0, const Matrix& phi_b)>& consume) const;
  [[nodiscard]] const BlockSpectrum& word_spectrum(Index position) const;
  void check_position(Index position) const;
  /// The cached U_i (spectrum first), or nullopt.
  [[nodiscard]] std::optional<double> known_word_bound(Index position) const;
  void store_word_bound(Index position, double bound) const;
  /// One pass over the column blocks V_i: A (k × M) += V_i·[word i of each sample] and, when
  /// `bounds`, U_i for every word whose bound is not yet known.
  void column_block_pass(std::span<const Matrix> samples, Matrix& A, bool bounds) const;
  /// max_i U_i·√d from the cache (every U_i known), scope all_positions.
  [[nodiscard]] SensitivityBound bound_from_cache() const;

  ModelSpec spec_;
  WeightKey key_;
  GaussianMatrix V_;
  // Guards spectra_ and word_bounds_, so that const methods stay safe to call from several
  // threads.
  mutable std::mutex cache_mutex_;
  LastSampleCache preactivation_cache_;  // V vec(X) of the latest X
  // Per-word spectra of V_i (bound and top right-singular vector), filled on demand.
  mutable std::vector<std::unique_ptr<BlockSpectrum>> spectra_;
  // Per-word single-precision bounds U_i (NaN: not computed), filled on demand.
  mutable std::vector<double> word_bounds_;
};

}  // namespace wordsens
