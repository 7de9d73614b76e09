#pragma once
// What a model's work costs, in floating-point operations (a Philox normal counts as
// generation_cost() flops): each model family answers for its own evaluations, set-ups and
// weights (rf/rf_costs.hpp, drf/drf_costs.hpp, attention/attention_costs.hpp, with their
// calibration), and study/cost_model.cpp assembles them into a task's cost and its seconds with
// no branch on a model. The machine's rates, which every family prices against, are here. Every
// calibrated constant (kGenerationCost, kEffectiveFlopsPerSecond, kDenseSpeedup, …) is a row of
// models/calibration.tsv, with how it was measured.
#include "core/types.hpp"
#include "models/shared/feature_map.hpp"
#include "models/shared/model_kind.hpp"
#include "wordsens/cost_calibration.hpp"

namespace wordsens {

/// The CPU the costs are priced for. Its features choose the kernels' rates (Philox on 8 or 16
/// lanes, the float Gram's AVX2 or AVX-512 kernel): the CPU running this process, unless a
/// PricedAs pins another.
struct CostHost {
  bool avx512 = false;
};
[[nodiscard]] CostHost cost_host();

/// While it lives, every cost is priced as on `host` rather than on the CPU running this
/// process: the cost model's calibration tests price the host their times were measured on, so
/// that they hold on any CI machine. Not thread-safe; one at a time.
class PricedAs {
 public:
  explicit PricedAs(CostHost host);
  ~PricedAs();
  PricedAs(const PricedAs&) = delete;
  PricedAs& operator=(const PricedAs&) = delete;
};

/// kGenerationCost or kGenerationCostAvx512, for cost_host().
[[nodiscard]] double generation_cost();

/// A task's sizes, as the cost formulas use them.
struct CostShape {
  double n = 0, d = 0, k = 0;  // k: 0 for attention
  double L = 1;                // drf's depth
  double H = 1;                // attention heads (mhraf, block)
};

/// What of the search configuration changes a model's costs.
struct CostOptions {
  bool upper_bound = false;       // rf: the certified bound (every word's Gram)
  bool guided_start = false;      // the guided start's spectra
  bool marginal_sampler = false;  // rf-sampling = marginal
};

/// What of a ws task's search changes the memory it holds.
struct SearchShape {
  double positions = 1;  // examined positions (word sets)
  double starts = 1;     // ascents per position, guided ones counted twice (a round's points)
  double words = 1;      // m, words changed at once
};

/// The positions a search holds at once when the model groups them into rounds of about 64
/// points (estimators/ws_search_steps.hpp, kTargetBatch; FeatureMap::positions_per_group).
[[nodiscard]] double grouped_positions(const SearchShape& q);

/// One model's prices (flops), each measured against the complexities of docs/METHOD.md §4, and
/// its memory (bytes).
class ModelCosts {
 public:
  virtual ~ModelCosts() = default;

  /// One batched objective + gradient evaluation at one position (ws, one word).
  [[nodiscard]] virtual double evaluation(const CostShape& s) const = 0;
  /// φ(X) for one sample.
  [[nodiscard]] virtual double features(const CostShape& s) const = 0;
  /// Generating the weights once.
  [[nodiscard]] virtual double weights(const CostShape& s) const = 0;
  /// The position evaluator's set-up, per examined position.
  [[nodiscard]] virtual double position_setup(const CostShape& s) const = 0;
  /// Once per sample: products all positions share.
  [[nodiscard]] virtual double sample_setup(const CostShape& s) const = 0;
  /// One objective + gradient evaluation with `words` words changed at once.
  [[nodiscard]] virtual double set_evaluation(const CostShape& s, double words) const = 0;
  /// The set-up of one word set of `words` words (and its certified bound, if any).
  [[nodiscard]] virtual double set_setup(const CostShape& s, const CostOptions& o,
                                         double words) const = 0;
  /// One objective + gradient evaluation through the position evaluator, one point at a time
  /// (features_at and pullback).
  [[nodiscard]] virtual double single_point_evaluation(const CostShape& s) const = 0;
  /// One point of gen's head searches, which climb in lockstep (PositionEvaluator::
  /// linear_readouts, a few points per call): single_point_evaluation unless the model batches
  /// them.
  [[nodiscard]] virtual double gen_point_evaluation(const CostShape& s) const;
  /// How much longer the joint ascents of `words` changed words run than one word's.
  [[nodiscard]] virtual double multi_word_growth(double words) const = 0;

  /// Peak bytes of one ws task beyond the process itself: the weights it holds, the evaluators
  /// of the positions (word sets) it searches at once, their points. Fitted to the peak resident
  /// memory of single tasks (study/cost_model.cpp, kMemory*; tests/cli/memory_test.py measures
  /// it).
  [[nodiscard]] virtual double ws_memory(const CostShape& s, const CostOptions& o,
                                         const SearchShape& q) const = 0;
  /// The same of a gen task with N training texts and feature dimension p. Default: the models
  /// that build Φ whole, (N + 1) × p, with its copy for the products, the Gram matrix and the
  /// head's M × M matrices, M = N + 1: 8·(2.1·M·p + 4·M²) bytes (raf: 594 MB measured at
  /// n = 40, d = 768, N = 1100; 607 MB priced).
  [[nodiscard]] virtual double gen_memory(const CostShape& s, const CostOptions& o, double N,
                                          double p) const;

  /// A ws task with one changed word apart from its search (weights, φ, certification), over
  /// `positions` examined positions.
  [[nodiscard]] virtual double ws_outside_search(const CostShape& s, const CostOptions& o,
                                                 double positions) const;
  /// A ws task with m ≥ 2 changed words apart from its searches.
  [[nodiscard]] virtual double multi_word_outside_search(const CostShape& s) const;
  /// A gen task apart from its searches: weights, the N + 1 texts' features, the Gram matrix of
  /// feature dimension p and the head.
  [[nodiscard]] virtual double gen_outside_search(const CostShape& s, const CostOptions& o,
                                                  double N, double p, double positions) const;
};

/// How long a model's ascents run, measured: numbers of its catalogue row (models/registry.cpp),
/// with which study/cost_model.cpp counts a search's evaluations.
struct SearchLengths {
  /// Typical evaluations per ascent start of ws's search at the default budget (max-evals =
  /// 300).
  double ws_evaluations_per_start = 0;
  /// The same of gen's head searches.
  double gen_evaluations_per_start = 110;
  /// The share of ws's ascents that run until the evaluation budget whatever it is (stalled far
  /// from a stationary point); the others converge on their own. 0 when the typical count above
  /// is one of converging ascents, as for most models.
  double ws_share_at_budget = 0;
};

/// The prices of the model `kind` (models/registry.cpp), under the attention models' `mask`.
[[nodiscard]] const ModelCosts& model_costs(ModelKind kind,
                                            AttentionMask mask = AttentionMask::none);
/// The same model's search lengths.
[[nodiscard]] const SearchLengths& search_lengths(ModelKind kind,
                                                  AttentionMask mask = AttentionMask::none);

}  // namespace wordsens
