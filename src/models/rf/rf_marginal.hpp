#pragma once
// rf with the exact marginal sampler: only the weights a task's estimates actually read are
// drawn, with the full sampler's joint law.
//
// Everything rf computes for a set of samples X_0 … X_{M−1} and perturbations of the words in a
// position set P is a function of (V_P, A): the blocks V_i (i ∈ P) and the preactivations
// A[:, s] = V vec(X_s) — WS's a, gen's Gram matrix, heads and φ(X^i(Δ)) = ϕ(A[:, s] + V_i Δ).
//
// Why the joint law is exact. With V ∈ R^{k×D} iid N(0, 1/D) and x_{s,j} word j of sample s,
//   A[r, s] = Σ_{i∈P} V_{r,i}·x_{s,i} + R[r, s],   R[r, s] = Σ_{j∉P} V_{r,j}·x_{s,j}.
// R is a linear function of the blocks (V_j)_{j∉P} alone, independent of V_P. Row r of R uses
// only row r of V, so rows are independent; each row is a centred Gaussian vector over the
// samples with covariance G[s, t] = Σ_{j∉P} ⟨x_{s,j}, x_{t,j}⟩ / D. Hence, with F any factor
// F Fᵀ = G (a Cholesky factor; a symmetric square root when G is singular) and Z ∈ R^{M×k} iid
// N(0, 1) independent of V_P, the rows R[r, :] := (F Z[:, r])ᵀ are independent N(0, G) vectors
// independent of V_P: (V_P, R) has exactly the full sampler's law, and so does every quantity
// computed from (V_P, A): S, i*, Δ*, K, the heads, t0, t1, D0, D1, E.
//
// Two modes.
//  * WS (no sample set given): one sample at a time, M = 1, G = σ(X)² with
//    σ(X)² = Σ_{j∉P} ‖x_j‖²/D, so R = σ(X)·z with z = row 0 of Z. A trial costs O(k·d·|P|).
//  * Gen (a sample set given at construction, e.g. gen's N training texts and its test text):
//    F is computed once from the samples' words outside P (O(M²·(D − |P|·d)) flops, then an
//    O(M³) Cholesky factorisation), and gram / transpose_apply regenerate Z and V_P in row blocks:
//    O(k·M² + k·M·|P|·d) per call instead of the full sampler's O(k·M·D) — the (N+1)×(N+1)
//    factor replaces the D columns of V. Memory O(M² + M·|P|·d + block·M).
//
// Weights: V_i are the very same GaussianMatrix windows as RandomFeatures' (weights matrix 0 of
// the task), bitwise; Z is weights matrix 1 of the task, which rf never uses (its entry (s, r)
// drives sample s, feature r; WS uses row 0, so WS of one sample equals gen mode with M = 1 up to
// the rounding of σ).
//
// What it cannot give:
//  * at_position(X, i) for i ∉ P: V_i is not drawn (and would not be independent of R); throws.
//  * S_upper = max over all n words of ‖V_i‖₂·√d needs every block, i.e. the full O(k·D) pass the
//    sampler exists to avoid. sensitivity_upper_bound gives the bound over the examined words
//    only, max_{i∈P} U_i·√d with U_i ≥ ‖V_i‖₂ certified as rf's (the blocks are bitwise rf's, and
//    the argument is rf's: ϕ is 1-Lipschitz and only word i moves), scope examined_positions
//    (all_positions when P is every word): a bound on the restricted supremum max_{i∈P}, not on
//    S. U_i comes from the double spectrum that the guided start computes anyway (cached here),
//    else from the single-precision Gram matrix (models/bounds/float_gram.hpp).
//  * In WS mode, several samples at once (gram / transpose_apply): the residuals of different
//    samples are correlated through the undrawn blocks, so one z cannot serve them; both throw.
//    In gen mode they accept exactly the registered samples (same order), nothing else.
//  * In gen mode, features / at_position of a text that does not agree with one of the
//    registered samples on every word outside P (its residual was never drawn); throws. Texts
//    are matched by a 64-bit fingerprint of their words outside P, the words in P compared
//    exactly where gram / transpose_apply check their samples.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "core/gaussian.hpp"
#include "core/huge_page_buffer.hpp"
#include "models/bounds/block_norm.hpp"
#include "models/shared/feature_map.hpp"
#include "models/shared/sample_cache.hpp"

namespace wordsens {

class MarginalRandomFeatures final : public FeatureMap,
                                     public CertifiedBound,
                                     public GuidedStarts,
                                     public StreamedFeatures {
 public:
  /// Rows of V_P generated and multiplied at a time in WS mode.
  static constexpr Index kRowBlock = 1024;
  /// Rows of V_P and columns of Z per block of gram / transpose_apply (memory ≈ 3·M·256 doubles).
  static constexpr Index kSampleRowBlock = 256;
  /// gram keeps the blocks of Φ it streamed, for the transpose_apply that follows it (the trained
  /// head's second pass), when Φ (M × k doubles) takes at most this much; larger Φ is streamed
  /// again. The second pass regenerated Z and V_P and redid the triangular product: about a sixth
  /// of an rf head at n = 120, d = 768, N = 1300 (its Φ: 0.96 GB).
  static constexpr double kMaxKeptFeatureBytes = 2.0 * (1 << 30);
  /// Whether gram keeps Φ for M samples and k features (the cost model prices the head by it).
  [[nodiscard]] static constexpr bool keeps_features(double M, double k) {
    return 8.0 * M * k <= kMaxKeptFeatureBytes;
  }

  /// WS mode. `positions`: P, distinct, each in [0, n), non-empty (PositionSet::resolve's result).
  MarginalRandomFeatures(ModelSpec spec, WeightKey key, std::span<const Index> positions);
  /// Gen mode: the weights are drawn for exactly these samples (in this order for gram).
  MarginalRandomFeatures(ModelSpec spec, WeightKey key, std::span<const Index> positions,
                         std::span<const Matrix* const> samples);

  [[nodiscard]] const ModelSpec& spec() const override { return spec_; }
  [[nodiscard]] Index feature_dim() const override { return spec_.k; }
  [[nodiscard]] Vector features(const Matrix& X) const override;
  /// Throws std::out_of_range for a position outside P.
  [[nodiscard]] std::unique_ptr<PositionEvaluator> at_position(const Matrix& X,
                                                               Index position) const override;
  /// The top right-singular vector of V_i (i ∈ P), as RandomFeatures gives.
  [[nodiscard]] std::optional<Vector> guided_direction(const Matrix& X,
                                                       Index position) const override;
  /// max_{i∈P} U_i·√d, scope examined_positions (all_positions if P is every word): see the
  /// header comment.
  [[nodiscard]] std::optional<SensitivityBound> sensitivity_upper_bound(
      const Matrix& X) const override;
  [[nodiscard]] Matrix gram(std::span<const Matrix> samples) const override;
  [[nodiscard]] Matrix transpose_apply(std::span<const Matrix> samples,
                                       const Matrix& C) const override;

  /// None: this sampler never draws V, only the examined words' blocks and a residual, which
  /// do not determine φ of another text.
  [[nodiscard]] std::vector<NamedWeights> stored_weights(Index max_entries) const override;

  [[nodiscard]] const std::vector<Index>& positions() const { return positions_; }
  [[nodiscard]] bool has_sample_set() const { return sample_set_.has_value(); }
  /// A[:, s] for the sample X (cached for the latest X, like RandomFeatures::preactivation).
  [[nodiscard]] Vector preactivation(const Matrix& X) const;
  /// V_i for i ∈ P: bitwise RandomFeatures::word_block(i) of the same key.
  [[nodiscard]] Matrix word_block(Index position) const;
  /// U_i ≥ ‖V_i‖₂ (i ∈ P), certified: the cached double spectrum's bound if the guided start
  /// computed it, else the single-precision bound (computed and cached on first use).
  [[nodiscard]] double word_block_norm_bound(Index position) const;
  /// z ~ N(0, I_k), the standardised residual of WS mode (row 0 of Z).
  [[nodiscard]] Vector residual_direction() const;
  /// σ(X) = sqrt(Σ_{j∉P} ‖x_j‖² / D).
  [[nodiscard]] double residual_scale(const Matrix& X) const;
  /// Gen mode: G, the covariance over the samples of one row of R (for tests).
  [[nodiscard]] const Matrix& residual_covariance() const;
  /// Gen mode: whether F is G's Cholesky factor (else its symmetric square root; for tests).
  [[nodiscard]] bool factor_is_cholesky() const;
  /// Gen mode: whether gram has left Φ's blocks for the next transpose_apply (for tests).
  [[nodiscard]] bool holds_feature_blocks() const;

 private:
  // Gen mode's sample set: what the residuals and the blocks' products need, not the samples.
  struct SampleSet {
    Index count = 0;
    std::vector<Matrix> words_in_p;  // [q]: count × d, row s = word positions_[q] of sample s
    Matrix covariance;               // G (count × count)
    Matrix factor;                   // F with F Fᵀ = G
    bool triangular = true;          // F lower triangular (Cholesky) or a symmetric square root
    std::vector<std::uint64_t> fingerprints;  // of each sample's words outside P
  };

  void check_position(Index position) const;
  /// The spectrum of V_i (i ∈ P), computed once (guided direction and bound).
  [[nodiscard]] const BlockSpectrum& word_spectrum(Index position) const;
  [[nodiscard]] std::uint64_t fingerprint_outside_p(const Matrix& X) const;
  /// Index of the registered sample that agrees with X outside P; throws if none.
  [[nodiscard]] Index find_sample(const Matrix& X) const;
  /// Throws unless `samples` are the registered ones, in order.
  void check_sample_set(std::span<const Matrix> samples) const;
  /// R[:, s] in gen mode, σ(X)·z in WS mode.
  [[nodiscard]] Vector residual(const Matrix& X) const;
  /// Streams row blocks of (V_P, Z): calls consume(r0, Φ_b) with Φ_b = ϕ(A[r0 : r0 + h, :])ᵀ
  /// (count × h) for each block of kSampleRowBlock feature rows, never all of Φ (count × k)
  /// unless `keep`, which stores them in kept_features_.
  using FeatureBlockConsumer = std::function<void(Index r0, const Eigen::Ref<const Matrix>& phi_b)>;
  void for_each_feature_block(const FeatureBlockConsumer& consume, bool keep) const;

  ModelSpec spec_;
  GaussianMatrix V_;  // weights matrix 0: the full sampler's V
  GaussianMatrix Z_;  // weights matrix 1: the standardised residuals
  std::vector<Index> positions_;
  std::vector<bool> in_p_;
  std::optional<SampleSet> sample_set_;
  mutable std::mutex cache_mutex_;       // guards the residual cache and the spectra below
  LastSampleCache preactivation_cache_;  // V vec(X) of the latest X
  // Gen mode: R[:, s] of the latest sample s (the search perturbs one text many times).
  mutable Index cached_residual_sample_ = -1;
  mutable Vector cached_residual_;
  // Per-position spectra (index = word position; only i ∈ P filled) and single-precision bounds
  // (NaN: not computed).
  mutable std::vector<std::unique_ptr<BlockSpectrum>> spectra_;
  mutable std::vector<double> word_bounds_;
  // Gen mode: Φ's blocks as gram streamed them, taken by the next transpose_apply (both see the
  // very same numbers: the blocks are a deterministic function of the weights).
  mutable std::mutex blocks_mutex_;
  mutable HugePageBuffer kept_features_;
};

}  // namespace wordsens
