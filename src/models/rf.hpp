#pragma once
// rf (SPEC §2): φ(X) = ϕ(V vec(X)), V ∈ R^{k×D} iid N(0, 1/D), weight matrix 0 of the task.
//
// V is never stored whole: it is a GaussianMatrix whose windows are regenerated on demand with
// identical bits. `features` streams row blocks of V (kRowBlock × D); the evaluator of word i
// keeps a = V vec(X) (k numbers) and B = V_i (the k × d column block of word i), so memory is
// O(k·d + D) and each evaluation costs O(k·d).
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/gaussian.hpp"
#include "models/block_norm.hpp"
#include "models/feature_map.hpp"
#include "models/sample_cache.hpp"

namespace wordsens {

class RandomFeatures final : public FeatureMap {
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
  /// max_i U_i·√d with U_i ≥ ‖V_i‖₂ certified (block_norm.cpp). Independent of X; the per-word
  /// spectra are cached (O(D) memory), so later calls and guided_direction are free.
  [[nodiscard]] std::optional<double> sensitivity_upper_bound(const Matrix& X) const override;
  [[nodiscard]] Matrix gram(std::span<const Matrix> samples) const override;
  [[nodiscard]] Matrix transpose_apply(std::span<const Matrix> samples,
                                       const Matrix& C) const override;

  /// The weights (for tests: any window of V).
  [[nodiscard]] const GaussianMatrix& weights() const { return V_; }
  /// V vec(X), streamed by row blocks of V (a pass over all of V: k·D normals). The result for
  /// the latest X is cached, so features(X) followed by at_position(X, i) for every i costs one
  /// pass, not n + 1.
  [[nodiscard]] Vector preactivation(const Matrix& X) const;
  /// V_i, the k × d column block of word i.
  [[nodiscard]] Matrix word_block(Index position) const;
  /// U_i ≥ ‖V_i‖₂, certified as explained in block_norm.cpp; tight to ~1e-8 relative.
  [[nodiscard]] double word_block_norm_bound(Index position) const;

 private:
  void check_sample(const Matrix& X) const;
  /// Calls consume(r0, Φ_b) with Φ_b = ϕ(X_all V_bᵀ) (M × h) for each row block V_b of V.
  void for_each_feature_block(
      std::span<const Matrix> samples,
      const std::function<void(Index r0, const Matrix& phi_b)>& consume) const;
  [[nodiscard]] const BlockSpectrum& word_spectrum(Index position) const;

  ModelSpec spec_;
  WeightKey key_;
  GaussianMatrix V_;
  // Guards spectra_, so that const methods stay safe to call from several threads.
  mutable std::mutex cache_mutex_;
  LastSampleCache preactivation_cache_;  // V vec(X) of the latest X
  // Per-word spectra of V_i (bound and top right-singular vector), filled on demand.
  mutable std::vector<std::unique_ptr<BlockSpectrum>> spectra_;
};

}  // namespace wordsens
