#pragma once
// Trained head and generalization after a one-word change (docs/METHOD.md §7).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "data/gen_problem.hpp"
#include "estimators/ball_ascent.hpp"
#include "estimators/positions.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {

enum class Training { finetune, retrain };
enum class HeadObjective { loss, align };

[[nodiscard]] std::string to_string(Training t);
[[nodiscard]] std::string to_string(HeadObjective o);
[[nodiscard]] Training parse_training(const std::string& text);        // throws InputError
[[nodiscard]] HeadObjective parse_objective(const std::string& text);  // throws InputError

/// The model for a gen task: make_feature_map with the positions the search will examine and
/// the samples [train; test] in fit_heads' order (rf's marginal sampler draws its weights for
/// exactly those; other models do not care).
[[nodiscard]] std::unique_ptr<FeatureMap> make_gen_feature_map(const ModelSpec& spec, WeightKey key,
                                                               const GenProblem& problem,
                                                               const PositionSet& positions);

struct GenOptions {
  std::vector<Training> trainings{Training::finetune, Training::retrain};
  std::vector<HeadObjective> objectives{HeadObjective::loss};
  PositionSet positions;  // default: all
  AscentOptions ascent;
  int sphere_starts = 1;
  int near_origin_starts = 1;
  bool guided_start = true;
};

/// One row of /gen: a (training mode, Δ objective) pair of one task.
struct GenResult {
  Training training = Training::finetune;
  HeadObjective objective = HeadObjective::loss;
  double t0 = 0, t1 = 0, D0 = 0, D1 = 0, E = 0;  // docs/METHOD.md, "The trained head"
  double cond_K = 0;                             // 2-norm condition number of K = ΦΦᵀ
  // |D1 from φ(X^i(Δ)) recomputed from scratch − D1 from the search's evaluator| / max(1, |D1|)
  double cert_rel_err = 0;
  Index position = 0;  // i* of the best Δ
  Vector delta;        // Δ*
  long evaluations = 0;
};

/// The starts of gen's searches at one position, as in WS: random points on the sphere ‖Δ‖ = √d,
/// points 0.1·N(0, I) near the origin, and the model's guided direction scaled to the sphere
/// (rows of the position's own ascent_starts matrix, apart from those WS uses).
[[nodiscard]] std::vector<Vector> gen_starting_points(const FeatureMap& model, const Matrix& X,
                                                      Index position, const GenOptions& options,
                                                      std::uint32_t master_seed,
                                                      std::uint32_t task_id);

/// Trains the head(s) and searches Δ; one result per (training, objective) in option order.
/// Throws std::invalid_argument when N ≥ p, std::runtime_error when K is numerically singular
/// (the message says which).
[[nodiscard]] std::vector<GenResult> evaluate_generalization(const FeatureMap& model,
                                                             const GenProblem& problem,
                                                             const GenOptions& options,
                                                             std::uint32_t master_seed,
                                                             std::uint32_t task_id);
/// The same, taking the problem's texts over instead of copying them (a gen task's largest
/// array at large n and N).
[[nodiscard]] std::vector<GenResult> evaluate_generalization(const FeatureMap& model,
                                                             GenProblem&& problem,
                                                             const GenOptions& options,
                                                             std::uint32_t master_seed,
                                                             std::uint32_t task_id);

}  // namespace wordsens
