#pragma once
// The interface every random-feature model implements (rf, drf, raf, raf_relu). Models are plain
// functions of their inputs and their weights' random stream: no MPI, no files, no command line.
//
// Two ways to evaluate a model, and tests check that they agree:
//  * `features(X)`: φ(X) from scratch, the plain reference computation;
//  * `at_position(X, i)`: an evaluator specialised to perturbations of word i, which precomputes
//    what does not depend on Δ so that φ(X^i(Δ)) and vector–Jacobian products cost O(k·d) for
//    rf and O(n·d + d²) for raf, not the cost of a full evaluation.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "models/shared/encoder_layer.hpp"
#include "models/shared/model_kind.hpp"

namespace wordsens {

/// Where a model's weights come from: Stream::weights, entity = task id (core/streams.hpp).
struct WeightKey {
  std::uint32_t master_seed;
  std::uint32_t task_id;
};

/// ϕ: relu and tanh (every model; 1-Lipschitz, which rf's and drf's certified bounds need), gelu
/// (z·Φ(z), block's MLP only: its Lipschitz constant is about 1.13).
enum class Activation { relu, tanh, gelu };

/// How rf draws its weights: all of V, or only what the estimates over known positions (and, for
/// gen, known samples) need (models/rf/rf_marginal.hpp; the same joint law for everything
/// computed).
enum class RfSampling { full, marginal };

/// Which words each row of an attention model attends to: every word, or (causal) words 0 … j
/// for row j, so that word i changes rows j ≥ i only.
enum class AttentionMask { none, causal };

/// Everything that determines a model, as read from the configuration.
struct ModelSpec {
  ModelKind kind = ModelKind::rf;
  Index n = 0;     // words per text
  Index d = 0;     // embedding dimension
  Index k = 0;     // width of rf / drf (ignored by attention models)
  int layers = 1;  // L for drf
  Activation activation = Activation::relu;
  RfSampling sampling = RfSampling::full;    // rf only
  Index heads = 1;                           // H, attention heads (mhraf, block)
  AttentionMask mask = AttentionMask::none;  // attention models
  // The trained models' weights, one layer of a pretrained encoder (the `encoder` key), shared by
  // every task; null for the other models.
  std::shared_ptr<const EncoderLayer> encoder = nullptr;
};

/// Which word positions a sensitivity bound covers.
enum class BoundScope : std::uint8_t {
  none = 0,
  all_positions = 1,       // every word i of the text: a bound on S itself
  examined_positions = 2,  // only the estimate's positions P: a bound on max over i ∈ P
};

/// A certified U ≥ sup over the scope's positions i and ‖Δ‖ ≤ √d of ‖φ(X^i(Δ)) − φ(X)‖ (NOT
/// divided by ‖φ(X)‖), rounding errors included: U/‖φ(X)‖ bounds S (or its restriction to P).
struct SensitivityBound {
  double value = 0;
  BoundScope scope = BoundScope::none;
};

/// What FeatureMap::recompute_plain returns.
struct PlainRecomputation {
  std::vector<Vector> features;           // φ(samples[j]) computed from scratch, by the plain
                                          // (non-incremental) path
  std::optional<SensitivityBound> bound;  // sensitivity_upper_bound(samples[0]) when want_bound
                                          // and the model has one
};

/// Evaluates φ(X^i(Δ)) for one sample X and one word i, and the pullback of a cotangent through
/// it. Stateful: `pullback` refers to the Δ of the latest `features_at` call.
class PositionEvaluator {
 public:
  virtual ~PositionEvaluator() = default;

  [[nodiscard]] virtual Index position() const = 0;
  /// φ(X), the unperturbed features.
  [[nodiscard]] virtual const Vector& base_features() const = 0;
  /// out ← φ(X^i(Δ)).
  virtual void features_at(const Vector& delta, Vector& out) = 0;
  /// grad ← ∇_Δ ⟨c, φ(X^i(Δ))⟩ at the Δ of the latest `features_at`.
  virtual void pullback(const Vector& cotangent, Vector& grad) = 0;

  /// The word-sensitivity objective f(Δ) = ‖φ(X^i(Δ)) − φ(X)‖² at the B columns of `deltas`
  /// (d × B): values(b) ← f(Δ_b) and, when `grads` is not null, its column b ← ∇f(Δ_b) (both
  /// resized here). The default evaluates one column at a time with features_at and pullback
  /// (cotangent 2(φ' − φ)); rf and raf override it to read their weights once per batch, with
  /// GEMMs instead of matrix–vector products. Changes the state `pullback` refers to.
  virtual void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads);

  /// Linear read-outs of the perturbed features, the trained head's searches (docs/METHOD.md §7):
  /// values(b) ← ⟨φ(X^i(Δ_b)), v_b⟩ and, when `grads` is not null, its column b ← the gradient
  /// J_bᵀ v_b, for the columns Δ_b of `deltas` (d × B) and v_b = *readouts[b] (both resized
  /// here). The default evaluates one column at a time with features_at and pullback; rf
  /// overrides it to read its weights once per batch. Changes the state `pullback` refers to.
  virtual void linear_readouts(const Matrix& deltas, std::span<const Vector* const> readouts,
                               Vector& values, Matrix* grads);

 private:
  Vector phi_scratch_, residual_scratch_, grad_scratch_;  // the default's, allocated once
};

/// The evaluators of several positions of one sample, whose batched objectives can be served by
/// one call: column b of a batch is a point of slot slots[b]. The default dispatches the columns
/// of each slot to its evaluator; raf shares its weights' products across positions, so one call
/// reads them once for all slots.
class PositionGroup {
 public:
  explicit PositionGroup(std::vector<std::unique_ptr<PositionEvaluator>> evaluators)
      : evaluators_(std::move(evaluators)) {}
  virtual ~PositionGroup() = default;

  [[nodiscard]] Index size() const { return static_cast<Index>(evaluators_.size()); }
  [[nodiscard]] PositionEvaluator& evaluator(Index slot) {
    return *evaluators_.at(static_cast<std::size_t>(slot));
  }
  /// PositionEvaluator::sensitivity_objective for points of several slots.
  virtual void sensitivity_objective(std::span<const Index> slots, const Matrix& deltas,
                                     Vector& values, Matrix* grads);

 private:
  std::vector<std::unique_ptr<PositionEvaluator>> evaluators_;
};

/// Evaluates the objective of m changed words M = (i_1, …, i_m) of one sample X (distinct
/// positions): f(Δ) = ‖φ(X^M(Δ)) − φ(X)‖², where Δ = (δ_1; …; δ_m) stacks the m moves (m·d
/// numbers) and X^M(Δ) is X with row i_j moved by δ_j. m = 1 is PositionEvaluator's objective.
class WordSetEvaluator {
 public:
  virtual ~WordSetEvaluator() = default;

  [[nodiscard]] virtual std::span<const Index> positions() const = 0;
  /// φ(X), the unperturbed features.
  [[nodiscard]] virtual const Vector& base_features() const = 0;
  /// values(b) ← f(Δ_b) and, when `grads` is not null, its column b ← ∇f(Δ_b) (m·d numbers:
  /// the gradient with respect to each moved row, in the order of positions()), for the columns
  /// Δ_b of `deltas` ((m·d) × B). Both are resized here.
  virtual void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) = 0;
};

/// A capability a model declares by deriving from it: the trained head's two products over the
/// samples' features without storing Φ, for a model whose Φ is too large to hold (rf, whose V is
/// regenerated by column blocks on each pass). For any other model the head builds Φ once for
/// both products (estimators/min_norm_head.cpp).
class StreamedFeatures {
 public:
  virtual ~StreamedFeatures() = default;
  /// Gram matrix K = ΦΦᵀ of the samples' features (Φ's rows are φ(X_m)).
  [[nodiscard]] virtual Matrix gram(std::span<const Matrix> samples) const = 0;
  /// Φᵀ C (p × C.cols()) for coefficients C (samples.size() × m), streamed like `gram`.
  [[nodiscard]] virtual Matrix transpose_apply(std::span<const Matrix> samples,
                                               const Matrix& C) const = 0;
};

/// A capability a model declares by deriving from it: several words changed at once (the
/// multi-word study, S_m). rf (full sampler) and drf move the first layer's pre-activations by
/// Σ_j V_{1,i_j} δ_j, O(m·k·d) per point; raf and raf_relu update the m rows and columns of the
/// scores that change, O(n·m·d + m·d²). rf's marginal sampler draws single blocks only and does
/// not declare it.
class WordSets {
 public:
  virtual ~WordSets() = default;
  /// The evaluator of m changed words at `positions` (distinct, in range) of X.
  [[nodiscard]] virtual std::unique_ptr<WordSetEvaluator> at_word_set(
      const Matrix& X, std::span<const Index> positions) const = 0;
  /// A certified U ≥ sup over ‖δ_j‖ ≤ √d of ‖φ(X^M(Δ)) − φ(X)‖ for each of the word sets M in
  /// `sets`, maximised over them (scope examined_positions: it bounds the examined sets only),
  /// when the model has one (rf with the full sampler, drf): ‖V_{1,M}‖₂·√(m·d), times ∏‖V_l‖₂
  /// for drf, with V_{1,M} the k × m·d columns of the set's words (docs/METHOD.md §4). None by
  /// default.
  [[nodiscard]] virtual std::optional<SensitivityBound> word_set_upper_bound(
      const Matrix& X, std::span<const std::vector<Index>> sets) const;
};

/// A capability a model declares by deriving from it: a certified bound on the numerator of S
/// for a sample (rf, drf; the marginal rf over its examined positions only): see
/// SensitivityBound. The plain recomputation that certifies a record computes it again.
class CertifiedBound {
 public:
  virtual ~CertifiedBound() = default;
  [[nodiscard]] virtual std::optional<SensitivityBound> sensitivity_upper_bound(
      const Matrix& X) const = 0;
};

/// A capability a model declares by deriving from it: where its structure says the
/// word-sensitivity search should start for word `position`, beside the random starts.
class GuidedStarts {
 public:
  virtual ~GuidedStarts() = default;
  /// A starting direction for word `position` (any norm; the optimiser rescales it), or nullopt
  /// when the model has none for this sample.
  [[nodiscard]] virtual std::optional<Vector> guided_direction(const Matrix& X,
                                                               Index position) const = 0;
  /// Every starting direction the model suggests for word `position` (any norms): by default
  /// guided_direction's; a model may add more (raf: the top eigenvector of W's symmetric part).
  /// The word-sensitivity search climbs from each, scaled to the sphere.
  [[nodiscard]] virtual std::vector<Vector> guided_directions(const Matrix& X,
                                                              Index position) const;
  /// Starting points (moves Δ of word `position` inside the ball ‖Δ‖ ≤ √d, climbed from as they
  /// are, not rescaled) that the model's structure proves good: none by default; raf_relu moves
  /// the word so that only one other word keeps a positive score in its row (models/relu_floor).
  [[nodiscard]] virtual std::vector<Vector> guided_points(const Matrix& X, Index position) const;
};

class FeatureMap {
 public:
  virtual ~FeatureMap() = default;

  [[nodiscard]] virtual const ModelSpec& spec() const = 0;
  /// p, the dimension of φ(X).
  [[nodiscard]] virtual Index feature_dim() const = 0;

  /// φ(X) from scratch.
  [[nodiscard]] virtual Vector features(const Matrix& X) const = 0;

  /// The fast evaluator for perturbations of word `position` of X.
  [[nodiscard]] virtual std::unique_ptr<PositionEvaluator> at_position(const Matrix& X,
                                                                       Index position) const = 0;

  /// The evaluators of several positions of X as one group (PositionGroup).
  [[nodiscard]] virtual std::unique_ptr<PositionGroup> at_positions(
      const Matrix& X, std::span<const Index> positions) const;

  /// How many positions the word-sensitivity search should group so that a batch holds about
  /// `points` points when each position runs `per_position`: 1 (no grouping) by default, where an
  /// evaluator holds memory of its own (rf: its word's block V_i) and grouping shares nothing.
  [[nodiscard]] virtual Index positions_per_group(Index points, Index per_position) const;

  /// The plain recomputation that certifies a record: φ(samples[j]) from scratch, and the bound
  /// of samples[0] when `want_bound`. The default calls `features` on each sample and, for a
  /// model with a CertifiedBound, `sensitivity_upper_bound(samples[0])`; rf with the full sampler
  /// overrides it to serve the features and every word's Gram matrix from one pass over V
  /// (models/rf/rf.cpp).
  [[nodiscard]] virtual PlainRecomputation recompute_plain(std::span<const Matrix> samples,
                                                           bool want_bound) const;

  /// A weight matrix under the name the results file gives it ("V", "V1", "W").
  struct NamedWeights {
    std::string name;
    Matrix values;
  };
  /// The weights as stored with a witness (--save-witness), so that anyone can recompute a
  /// result without this code's generator: every matrix the features depend on, or none when
  /// they hold more than `max_entries` numbers in all. Each model answers for itself.
  [[nodiscard]] virtual std::vector<NamedWeights> stored_weights(Index max_entries) const = 0;

  /// Φ itself (N × p), densely: what the trained head's products are made of for a model that
  /// does not stream them (StreamedFeatures), and tests'.
  [[nodiscard]] Matrix feature_matrix(std::span<const Matrix> samples) const;

 protected:
  /// std::invalid_argument "<model>: sample is r x c, model expects n x d" unless X is n × d.
  void check_sample(const Matrix& X) const;
};

/// Why the model of `spec` cannot be built at that size on any machine (drf's layers above
/// their memory limit), in one line for a study's plan; nothing when it can. Checked for every
/// task before a run starts, so that a study does not fail at its largest point hours in.
[[nodiscard]] std::optional<std::string> model_size_problem(const ModelSpec& spec);

/// ΦΦᵀ of a dense Φ, as a symmetric rank update (SYRK: half the flops of a general product, and
/// exactly symmetric): the trained head's Gram matrix for a model that does not stream Φ.
[[nodiscard]] Matrix gram_of_rows(const Matrix& phi);

/// The model as StreamedFeatures when it declares that capability, else null.
[[nodiscard]] const StreamedFeatures* streamed_features(const FeatureMap& model);
/// The model as WordSets when it declares that capability, else null.
[[nodiscard]] const WordSets* word_sets(const FeatureMap& model);
/// The same, or std::invalid_argument naming the model when it does not declare it.
[[nodiscard]] const WordSets& require_word_sets(const FeatureMap& model);
/// The model as CertifiedBound when it declares that capability, else null.
[[nodiscard]] const CertifiedBound* certified_bound(const FeatureMap& model);
/// The model as GuidedStarts when it declares that capability, else null.
[[nodiscard]] const GuidedStarts* guided_starts(const FeatureMap& model);

/// Builds a model by name; throws InputError with a one-line message for an unknown
/// name or sizes the model cannot take (e.g. drf layers that do not fit in memory).
[[nodiscard]] std::unique_ptr<FeatureMap> make_feature_map(const ModelSpec& spec, WeightKey key);

/// The same, for a WS estimate over the word positions `positions` (PositionSet::resolve's
/// result): rf with RfSampling::marginal needs them to draw its weights; other models ignore them.
/// The one-argument form throws for RfSampling::marginal.
[[nodiscard]] std::unique_ptr<FeatureMap> make_feature_map(const ModelSpec& spec, WeightKey key,
                                                           std::span<const Index> positions);

/// The same, for estimates over several samples (gen's training texts and test text, in the
/// order `gram` will see them): rf with RfSampling::marginal draws its weights for exactly these
/// samples and positions (models/rf/rf_marginal.hpp); other models ignore both.
[[nodiscard]] std::unique_ptr<FeatureMap> make_feature_map(const ModelSpec& spec, WeightKey key,
                                                           std::span<const Index> positions,
                                                           std::span<const Matrix* const> samples);

}  // namespace wordsens
