#pragma once
// Sensitivity to m changed words (docs/METHOD.md §4, "Several words"):
//   S_m = sup over sets M of m distinct positions and moves δ_j with ‖δ_j‖ ≤ √d of
//         ‖φ(X^M(Δ)) − φ(X)‖ / ‖φ(X)‖,
// each changed row in the same ball as the one word of S = S_1. Estimated by a joint projected
// ascent over the m rows (the product of m balls) from several starts, on a family of sets:
// the first m words, r random m-sets, or a set grown greedily from the best single word. Like S,
// the estimate is a certified lower bound attained by a stored witness (M*, Δ*), recomputed from
// scratch; rf (full sampler) and drf also give a certified upper bound over the examined sets.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "estimators/ball_ascent.hpp"
#include "estimators/word_sensitivity.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {

/// Which sets of m words the estimate examines.
struct WordSetFamily {
  enum class Kind { first, random, greedy };
  Kind kind = Kind::first;
  Index count = 1;  // r for Kind::random

  /// "first", "random:r" (r ≥ 1) or "greedy"; throws InputError otherwise.
  static WordSetFamily parse(const std::string& text);
  [[nodiscard]] std::string to_string() const;
};

struct MultiWordOptions {
  Index words = 2;  // m ≥ 1
  WordSetFamily sets;
  WsOptions ws;  // starts, ascent budget, upper bound; m = 1 is estimate_word_sensitivity's
};

struct MultiWordResult {
  Index words = 0;                       // m
  double S = 0.0;                        // S_m at the witness
  std::optional<double> S_upper;         // certified bound over the examined sets
  int S_upper_scope = 0;                 // BoundScope's number
  std::vector<Index> argmax_set;         // M*
  Vector witness;                        // Δ* = (δ_1; …; δ_m), m·d numbers
  double phi_norm = 0.0;                 // ‖φ(X)‖
  double cert_rel_err = 0.0;             // |S recomputed from scratch − S| / S
  std::vector<std::vector<Index>> sets;  // the examined sets
  std::vector<double> set_maxima;        // S_m attained on each
  long evaluations = 0;
  long starts = 0;
  long starts_at_budget = 0;
};

/// m random sets' draws, the starts and the greedy growth are pure functions of (model, X,
/// options, master seed, task id). m = 1 runs estimate_word_sensitivity (first → the first
/// word, random:r → random:r, greedy → all positions) and returns its result bit for bit.
/// Throws std::invalid_argument for m < 1, m > n or a model that cannot move several words.
[[nodiscard]] MultiWordResult estimate_multi_word_sensitivity(const FeatureMap& model,
                                                              const Matrix& X,
                                                              const MultiWordOptions& options,
                                                              std::uint32_t master_seed,
                                                              std::uint32_t task_id);

/// ‖φ(X^M(Δ)) − φ(X)‖ / ‖φ(X)‖ from scratch (`model.features`): the certification check.
[[nodiscard]] double multi_word_sensitivity_at(const FeatureMap& model, const Matrix& X,
                                               const std::vector<Index>& set, const Vector& delta);

}  // namespace wordsens
