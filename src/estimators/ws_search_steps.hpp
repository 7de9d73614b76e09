#pragma once

// The steps of the word-sensitivity search that its two drivers share: the plain search
// (word_sensitivity.cpp) and the race (ws_race.cpp). Internal to estimators/.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "core/types.hpp"
#include "estimators/ball_ascent.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens::ws_search {

/// The best ascent over all starts of one position.
struct PositionBest {
  double value = -std::numeric_limits<double>::infinity();  // f_i(Δ) = ‖φ(X^i(Δ)) − φ(X)‖²
  Vector delta;
  long evaluations = 0;
  long starts = 0;
  long starts_at_budget = 0;
  double stationarity = 0.0;  // at delta
  // Set by finish_position; in a race, also that every ascent of the position is recorded (the
  // positions with a survivor are finished after their second leg, the others are not).
  bool stationarity_known = false;
};

/// What one position's search does. The plain search screens rows [0, screen) of the position's
/// random start matrix and takes its near-origin starts from the rows after them; a budget check
/// (factor > 1) runs the same starts with factor× the budget and adds (factor − 1)× as many new
/// ones from rows kExtraStartRow on, so it never loses a start of the plain search.
struct StartPlan {
  int sphere_starts = 0;
  int screen_points = 0;
  int near_origin_starts = 0;
  bool guided = true;
  int factor = 1;
  AscentOptions ascent;
  int polish_evaluations = 0;
  int polish_max_dim = 0;
  int race_evaluations = 0;  // 0: no race
  int race_survivors = 0;
};

/// Models whose positions share their products (raf) search this many points per round over a
/// group of positions, when each position alone runs fewer ascents. 64 rather than 32: Eigen
/// repacks the sample's [XW; XWᵀ; X] on every call, so wider calls amortise it (raf over all
/// 250 positions at d = 768: 27 s instead of 32.5 s, the same S and evaluations).
inline constexpr Index kTargetBatch = 64;
/// f and ∇f (when grads is not null) of the group's slots slots[b] at the columns of `deltas`,
/// in calls of at most a fixed number of columns.
void evaluate_chunked(PositionGroup& group, std::span<const Index> slots, const Matrix& deltas,
                      Vector& values, Matrix* grads);

/// The lockstep objective over `group` of ascents whose slots are slot_of[a].
BallBatchObjective group_objective(PositionGroup& group, const std::vector<Index>& slot_of,
                                   std::vector<Index>& slots);

/// The starts of every position of a group, position by position (start_slot: each one's slot),
/// with the screening's evaluations counted in `bests` and the priors (a budget check's plain
/// search) as each position's first candidate.
void add_group_starts(const FeatureMap& model, const Matrix& X, PositionGroup& group,
                      std::span<const Index> positions, const StartPlan& plan,
                      std::span<const PositionBest> priors, std::uint32_t master_seed,
                      std::uint32_t task_id, std::vector<PositionBest>& bests,
                      std::vector<double>& phi_norms, std::vector<Vector>& starts,
                      std::vector<Index>& start_slot);

/// An ascent's outcome into its position's best (ties keep the earlier start).
void record_ascent(const AscentResult& r, PositionBest& best);

/// The polish (d ≤ plan.polish_max_dim) and the stationarity of the best point of `best`, the
/// position in `slot` of `group`.
void finish_position(PositionGroup& group, Index slot, const StartPlan& plan, Index d,
                     PositionBest& best);

/// The raced search over every position, in groups of `group_size` positions (ws_race.cpp).
std::vector<PositionBest> race_positions(const FeatureMap& model, const Matrix& X,
                                         std::span<const Index> positions, Index group_size,
                                         const StartPlan& plan,
                                         std::span<const PositionBest> priors,
                                         std::uint32_t master_seed, std::uint32_t task_id,
                                         std::vector<double>& phi_norms);

}  // namespace wordsens::ws_search
