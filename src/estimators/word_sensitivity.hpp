#pragma once
// Word-sensitivity estimator: a certified lower bound S attained by a stored witness (i*, Δ*),
// recomputed from scratch at the witness as a check (cert_rel_err), the model's certified upper
// bound where it has one, and a record of how the search ended (starts, budget hits,
// stationarity at the witness, the best S at every examined position).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "estimators/ball_ascent.hpp"
#include "estimators/positions.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {

struct WsOptions {
  PositionSet positions;  // default: all
  AscentOptions ascent;
  int sphere_starts = 2;   // random points on the sphere ‖Δ‖ = √d: the best …
  int screen_points = 64;  // … of this many random sphere points (by f, no gradient)
  // … and at least this many sphere ascents in all, spread over the examined positions; −1 (auto):
  // the model's own minimum (ModelTraits::min_total_sphere_starts: 32 for raf and raf_relu, 0 for
  // rf and drf).
  int min_total_sphere_starts = -1;
  int near_origin_starts = 1;    // 0.1·N(0, I)
  bool guided_start = true;      // the model's suggested direction, scaled to the sphere
  int polish_max_dim = 16;       // d ≤ this: compass-search polish of each position's best
  int polish_evaluations = 400;  // … with at most this many evaluations
  bool upper_bound = true;       // compute S_upper where the model has one
  // The race (0: off): every ascent of the task climbs this many evaluations, then only the
  // `race_survivors` with the highest f among those still climbing go on to the budget; the
  // others stop where they are. Applies where the positions' starts outnumber the survivors and d
  // is above polish_max_dim. A budget check multiplies both by its factor.
  int race_evaluations = 0;
  int race_survivors = 128;
};

struct WsResult {
  double S = 0.0;                          // ‖φ(X^{i*}(Δ*)) − φ(X)‖ / ‖φ(X)‖
  std::optional<double> S_upper;           // certified upper bound, when the model has one
  int S_upper_scope = 0;                   // what S_upper bounds (BoundScope's numbers)
  Index argmax_position = 0;               // i*
  Vector witness;                          // Δ*
  double phi_norm = 0.0;                   // ‖φ(X)‖
  double cert_rel_err = 0.0;               // |S recomputed from scratch − S| / S
  std::vector<Index> positions;            // positions examined
  std::vector<double> position_maxima;     // S attained at each examined position
  std::vector<Vector> position_witnesses;  // … and where (the best Δ of each position)
  long evaluations = 0;       // f evaluations: screening, ascents, polish; all positions
  long starts = 0;            // ascents run, all positions
  long starts_at_budget = 0;  // … of which stopped by max_evaluations
  double stationarity = 0.0;  // r·‖projected ∇f‖ / f at the witness (0 at a KKT point)
};

/// "auto" → −1, "0" … "100000" → that number (digits only: no sign, no spaces); throws
/// InputError otherwise.
[[nodiscard]] int parse_min_total_sphere_starts(const std::string& text);
/// The inverse: "auto" for −1.
[[nodiscard]] std::string min_total_sphere_starts_text(int value);

/// min_total_sphere_starts with auto (−1) resolved for `model` (its traits' minimum).
[[nodiscard]] int min_total_sphere_starts(const WsOptions& options, ModelKind model);

/// Sphere ascents per position for `model`: max(sphere_starts, ⌈min total / positions⌉), or 0
/// when sphere_starts is 0.
[[nodiscard]] int sphere_starts_per_position(const WsOptions& options, ModelKind model,
                                             Index positions);

/// Whether the search of `model` over `positions` positions in dimension d races
/// (WsOptions::race_evaluations): a race is on and below the budget, d is above polish_max_dim,
/// and the positions' starts, counting two guided ones each, outnumber the survivors.
[[nodiscard]] bool search_races(const WsOptions& options, ModelKind model, Index positions,
                                Index d);

/// Random starts come from Stream::ascent_starts, entity = task id, so the estimate is a pure
/// function of (model, X, options, master seed, task id).
[[nodiscard]] WsResult estimate_word_sensitivity(const FeatureMap& model, const Matrix& X,
                                                 const WsOptions& options,
                                                 std::uint32_t master_seed, std::uint32_t task_id);

/// The budget check of an estimate: the same search with `factor` times the evaluations per
/// ascent and per polish and `factor` times the starts (the plain search's starts, each run
/// longer, plus (factor − 1) times as many new ones), seeded with `plain`'s best point at every
/// position. It is a superset of the plain search, so its S ≥ plain.S; a large gain means the
/// plain search had not converged. factor ≥ 2.
[[nodiscard]] WsResult recheck_with_more_budget(const FeatureMap& model, const Matrix& X,
                                                const WsOptions& options, int factor,
                                                const WsResult& plain, std::uint32_t master_seed,
                                                std::uint32_t task_id);

/// Where the budget check draws its additional random starts: rows from this one on of each
/// position's start matrix, far past the rows the plain search and the trained head use.
inline constexpr Index kExtraStartRow = Index{1} << 20;

/// r·‖P(∇f)‖ / f: the relative size of the projection of the gradient g of f at x onto the
/// tangent cone of the ball ‖x‖ ≤ r (g itself inside the ball; on the sphere g without its
/// outward radial part). 0 at a KKT point of the maximisation.
[[nodiscard]] double relative_stationarity(const Vector& x, const Vector& g, double f,
                                           double radius);

/// A record whose value and its recomputation from scratch differ by more than this (relative)
/// is not written: the task fails.
inline constexpr double kCertificationTolerance = 1e-9;

/// Throws std::runtime_error with one line naming `what`, its value and the relative error when
/// rel_err exceeds kCertificationTolerance (or is NaN).
void require_certified(const char* what, double value, double rel_err);

/// S recomputed from scratch (`model.features`) at a witness: the certification check.
[[nodiscard]] double sensitivity_at(const FeatureMap& model, const Matrix& X, Index position,
                                    const Vector& delta);

}  // namespace wordsens
