#include "estimators/word_sensitivity.hpp"

#include "estimators/ws_search_steps.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/gaussian.hpp"
#include "models/shared/model_kind.hpp"

namespace wordsens {
namespace {

void check_sample(const FeatureMap& model, const Matrix& X) {
  const ModelSpec& spec = model.spec();
  if (X.rows() != spec.n || X.cols() != spec.d) {
    throw std::invalid_argument("sample is " + std::to_string(X.rows()) + "x" +
                                std::to_string(X.cols()) + " but the model was built for " +
                                std::to_string(spec.n) + "x" + std::to_string(spec.d));
  }
}

double checked_norm(const Vector& phi) {
  const double norm = phi.norm();
  if (!(norm > 0.0) || !std::isfinite(norm)) {
    throw std::runtime_error("word sensitivity is undefined: ||phi(X)|| = " + std::to_string(norm));
  }
  return norm;
}

/// At most this many points per call of the evaluator's batched objective: a raf batch needs
/// O(n + d) per column, rf only kFusedRows per column (rf_evaluator.cpp works 64 rows at a time).
constexpr Index kMaxBatch = 64;

}  // namespace

namespace ws_search {

/// f and ∇f (when grads is not null) of the group's slots slots[b] at the columns of `deltas`,
/// kMaxBatch columns per call.
void evaluate_chunked(PositionGroup& group, std::span<const Index> slots, const Matrix& deltas,
                      Vector& values, Matrix* grads) {
  values.resize(deltas.cols());
  if (grads != nullptr) grads->resize(deltas.rows(), deltas.cols());
  Vector chunk_values;
  Matrix chunk_grads;
  for (Index c0 = 0; c0 < deltas.cols(); c0 += kMaxBatch) {
    const Index width = std::min(kMaxBatch, deltas.cols() - c0);
    group.sensitivity_objective(
        slots.subspan(static_cast<std::size_t>(c0), static_cast<std::size_t>(width)),
        deltas.middleCols(c0, width), chunk_values, grads != nullptr ? &chunk_grads : nullptr);
    values.segment(c0, width) = chunk_values;
    if (grads != nullptr) grads->middleCols(c0, width) = chunk_grads;
  }
}

/// The lockstep objective over `group` of ascents whose slots are slot_of[a].
BallBatchObjective group_objective(PositionGroup& group, const std::vector<Index>& slot_of,
                                   std::vector<Index>& slots) {
  return [&group, &slot_of, &slots](const Matrix& deltas, std::span<const std::size_t> ascents,
                                    Vector& values, Matrix& grads) {
    slots.clear();
    for (const std::size_t a : ascents) slots.push_back(slot_of[a]);
    evaluate_chunked(group, slots, deltas, values, &grads);
  };
}

/// The starts of every position of a group, position by position (start_slot: each one's slot),
/// with the screening's evaluations counted in `bests` and the priors (a budget check's plain
/// search) as each position's first candidate.
void add_group_starts(const FeatureMap& model, const Matrix& X, PositionGroup& group,
                      std::span<const Index> positions, const StartPlan& plan,
                      std::span<const PositionBest> priors, std::uint32_t master_seed,
                      std::uint32_t task_id, std::vector<PositionBest>& bests,
                      std::vector<double>& phi_norms, std::vector<Vector>& starts,
                      std::vector<Index>& start_slot) {
  const Index d = X.cols();
  const double radius = std::sqrt(static_cast<double>(d));
  const std::size_t count = positions.size();
  bests.assign(count, PositionBest{});
  phi_norms.assign(count, 0.0);
  std::vector<Index> same_slot;
  for (std::size_t q = 0; q < count; ++q) {
    const Index slot = static_cast<Index>(q), position = positions[q];
    PositionBest& best = bests[q];
    phi_norms[q] = checked_norm(group.evaluator(slot).base_features());
    if (!priors.empty()) {
      best.value = priors[q].value;  // the plain search's best point stays a candidate
      best.delta = priors[q].delta;
    }
    // Start s is a row of the position's own random matrix, so the starts of one position never
    // depend on other positions or tasks. The sphere starts are the best of `screen_points`
    // random sphere points by f alone (no gradient): one ascent per basin is what costs, and
    // screening picks the basins worth climbing, which matters most in low dimension where
    // f_i has few, well-separated local maxima on the sphere.
    const GaussianMatrix random_rows(
        {Philox(master_seed, Stream::ascent_starts), task_id, static_cast<std::uint32_t>(position)},
        1.0);
    const auto add_start = [&](Vector start) {
      starts.push_back(std::move(start));
      start_slot.push_back(slot);
    };
    const auto sphere_starts = [&](Index row0, Index screened, int wanted) {
      if (screened == 0) return;
      Matrix points(d, screened);
      for (Index c = 0; c < screened; ++c) {
        Vector v = random_rows.row_segment(row0 + c, 0, d);
        points.col(c) = v * (radius / v.norm());
      }
      same_slot.assign(static_cast<std::size_t>(screened), slot);
      Vector f;
      evaluate_chunked(group, same_slot, points, f, nullptr);
      best.evaluations += screened;
      // Stable: equal values keep the row order, so the choice is a pure function of the key.
      std::vector<Index> order(static_cast<std::size_t>(screened));
      for (Index c = 0; c < screened; ++c) order[static_cast<std::size_t>(c)] = c;
      std::stable_sort(order.begin(), order.end(), [&](Index l, Index r) { return f(l) > f(r); });
      for (int k = 0; k < wanted && k < screened; ++k) {
        add_start(points.col(order[static_cast<std::size_t>(k)]));
      }
    };
    const auto near_origin_starts = [&](Index row0, int wanted) {
      for (int k = 0; k < wanted; ++k) add_start(0.1 * random_rows.row_segment(row0 + k, 0, d));
    };
    const Index screened =
        plan.sphere_starts > 0 ? std::max(plan.screen_points, plan.sphere_starts) : 0;
    sphere_starts(0, screened, plan.sphere_starts);
    near_origin_starts(screened, plan.near_origin_starts);
    if (const GuidedStarts* guides = guided_starts(model); plan.guided && guides != nullptr) {
      for (const Vector& direction : guides->guided_directions(X, position)) {
        const double norm = direction.norm();
        if (norm > 0.0 && std::isfinite(norm)) add_start(direction * (radius / norm));
      }
      for (Vector& point : guides->guided_points(X, position)) add_start(std::move(point));
    }
    if (plan.factor > 1) {
      const int more = plan.factor - 1;
      sphere_starts(kExtraStartRow, more * screened, more * plan.sphere_starts);
      near_origin_starts(kExtraStartRow + more * screened, more * plan.near_origin_starts);
    }
  }
}

/// An ascent's outcome into its position's best. Strictly greater: ties keep the earlier start,
/// so the order of starts is the tie rule.
void record_ascent(const AscentResult& r, PositionBest& best) {
  best.evaluations += r.evaluations;
  ++best.starts;
  best.starts_at_budget += r.at_budget ? 1 : 0;
  if (r.value > best.value) {
    best.value = r.value;
    best.delta = r.argmax;
  }
}

/// The polish (d ≤ plan.polish_max_dim) and the stationarity of the best point of `best`, the
/// position in `slot` of `group`.
void finish_position(PositionGroup& group, Index slot, const StartPlan& plan, Index d,
                     PositionBest& best) {
  const double radius = std::sqrt(static_cast<double>(d));
  const std::array<Index, 1> one_slot{slot};
  const BallValue value = [&](const Vector& delta) {
    Vector f;
    evaluate_chunked(group, one_slot, delta, f, nullptr);
    return f(0);
  };
  // Row-normalised ReLU attention jumps where a row's only positive score crosses 0, and
  // ReLU maps have kinks: gradient steps stall next to such maxima. In low dimension a
  // compass search around the best point is cheap and climbs onto them.
  const int polish = plan.polish_evaluations * plan.factor;
  if (d <= plan.polish_max_dim && polish > 0 && best.delta.size() > 0) {
    AscentResult polished = pattern_search_on_ball(value, radius, best.delta, best.value,
                                                   0.05 * radius, 1e-10 * radius, polish);
    best.evaluations += polished.evaluations;
    best.value = polished.value;
    best.delta = std::move(polished.argmax);
  }
  if (best.delta.size() > 0) {
    Vector f;
    Matrix grad;
    evaluate_chunked(group, one_slot, best.delta, f, &grad);
    ++best.evaluations;
    best.stationarity = relative_stationarity(best.delta, grad.col(0), f(0), radius);
    best.stationarity_known = true;
  }
}

}  // namespace ws_search

namespace {

using ws_search::add_group_starts;
using ws_search::finish_position;
using ws_search::group_objective;
using ws_search::kTargetBatch;
using ws_search::PositionBest;
using ws_search::race_positions;
using ws_search::record_ascent;
using ws_search::StartPlan;

/// The search of a group of positions: every start of every position climbs in one lockstep, so
/// a round is one batched call; per position the outcome is what its own search would give
/// (same starts, same steps, ties kept by start order), up to the last bits of f.
std::vector<PositionBest> maximise_positions(const FeatureMap& model, const Matrix& X,
                                             std::span<const Index> positions,
                                             const StartPlan& plan,
                                             std::span<const PositionBest> priors,
                                             std::uint32_t master_seed, std::uint32_t task_id,
                                             std::vector<double>& phi_norms) {
  const auto group = model.at_positions(X, positions);
  const Index d = X.cols();
  const double radius = std::sqrt(static_cast<double>(d));
  std::vector<PositionBest> bests;
  std::vector<Vector> starts;     // every ascent of the group, position by position
  std::vector<Index> start_slot;  // … and its slot
  add_group_starts(model, X, *group, positions, plan, priors, master_seed, task_id, bests,
                   phi_norms, starts, start_slot);
  AscentOptions ascent = plan.ascent;
  ascent.max_evaluations *= plan.factor;
  std::vector<Index> slots;
  const std::vector<AscentResult> climbed = maximise_on_ball_lockstep(
      group_objective(*group, start_slot, slots), radius, std::move(starts), ascent);
  for (std::size_t a = 0; a < climbed.size(); ++a) {
    record_ascent(climbed[a], bests[static_cast<std::size_t>(start_slot[a])]);
  }
  for (std::size_t q = 0; q < bests.size(); ++q) {
    finish_position(*group, static_cast<Index>(q), plan, d, bests[q]);
  }
  return bests;
}

/// Starts per position of `plan` (guided ones counted as the model's usual two), times the
/// budget factor: what the grouping of positions is sized by.
Index starts_per_position(const StartPlan& plan) {
  return static_cast<Index>(plan.factor) *
         (plan.sphere_starts + plan.near_origin_starts + (plan.guided ? 2 : 0));
}

StartPlan plain_plan(const WsOptions& options, int sphere_starts) {
  StartPlan plan;
  plan.sphere_starts = sphere_starts;
  plan.screen_points = options.screen_points;
  plan.near_origin_starts = options.near_origin_starts;
  plan.guided = options.guided_start;
  plan.ascent = options.ascent;
  plan.polish_evaluations = options.polish_evaluations;
  plan.polish_max_dim = options.polish_max_dim;
  plan.race_evaluations = options.race_evaluations;
  plan.race_survivors = options.race_survivors;
  return plan;
}

void check_options(const WsOptions& options) {
  if (options.sphere_starts < 0 || options.near_origin_starts < 0 || options.screen_points < 0 ||
      options.min_total_sphere_starts < -1) {
    throw std::invalid_argument("the numbers of starts must be non-negative");
  }
  if (options.sphere_starts + options.near_origin_starts == 0 && !options.guided_start) {
    throw std::invalid_argument("the word-sensitivity estimator needs at least one start");
  }
}

/// Whether `plan` races over `positions`: a race is configured, stops short of the budget, the
/// dimension is above the polish's (which works on every position's best, after the ascents), and
/// the positions' starts (two guided ones each) outnumber the survivors.
bool races(const StartPlan& plan, std::size_t positions, Index d) {
  return plan.race_evaluations > 0 && plan.race_evaluations < plan.ascent.max_evaluations &&
         d > plan.polish_max_dim &&
         static_cast<Index>(positions) * starts_per_position(plan) >
             static_cast<Index>(plan.race_survivors) * plan.factor;
}

// The search over every position of `positions`, the plan per position; `prior` (the plain
// search of a budget check) seeds each position with its best point.
WsResult search(const FeatureMap& model, const Matrix& X, const StartPlan& plan,
                const std::vector<Index>& positions, const WsResult* prior,
                std::uint32_t master_seed, std::uint32_t task_id) {
  WsResult result;
  result.positions = positions;
  result.position_maxima.reserve(positions.size());
  const Index group_size = std::max<Index>(
      1, model.positions_per_group(kTargetBatch, std::max<Index>(1, starts_per_position(plan))));
  std::vector<PositionBest> seeds;
  if (prior != nullptr) {
    for (std::size_t q = 0; q < positions.size(); ++q) {
      PositionBest seed;
      seed.delta = prior->position_witnesses.at(q);
      const double s = prior->position_maxima.at(q) * prior->phi_norm;
      seed.value = s * s;
      seeds.push_back(std::move(seed));
    }
  }
  std::vector<PositionBest> bests;
  std::vector<double> phi_norms;
  if (races(plan, positions.size(), X.cols())) {
    bests = race_positions(model, X, positions, group_size, plan, seeds, master_seed, task_id,
                           phi_norms);
  } else {
    for (std::size_t g0 = 0; g0 < positions.size(); g0 += static_cast<std::size_t>(group_size)) {
      const std::size_t g1 = std::min(positions.size(), g0 + static_cast<std::size_t>(group_size));
      const std::span<const Index> members(positions.data() + g0, g1 - g0);
      std::vector<double> group_norms;
      std::vector<PositionBest> group_bests = maximise_positions(
          model, X, members, plan,
          seeds.empty() ? std::span<const PositionBest>() : std::span(seeds).subspan(g0, g1 - g0),
          master_seed, task_id, group_norms);
      for (std::size_t m = 0; m < members.size(); ++m) {
        bests.push_back(std::move(group_bests[m]));
        phi_norms.push_back(group_norms[m]);
      }
    }
  }
  double best_value = -std::numeric_limits<double>::infinity();
  std::size_t winner = 0;
  for (std::size_t q = 0; q < positions.size(); ++q) {
    const PositionBest& best = bests[q];
    const Index position = positions[q];
    result.evaluations += best.evaluations;
    result.starts += best.starts;
    result.starts_at_budget += best.starts_at_budget;
    if (best.delta.size() == 0) {
      // Only possible when the guided start was the sole start and the model offered none.
      throw std::runtime_error("no start available for position " + std::to_string(position));
    }
    result.position_maxima.push_back(std::sqrt(best.value) / phi_norms[q]);
    result.position_witnesses.push_back(best.delta);
    if (best.value > best_value) {
      best_value = best.value;
      winner = q;
    }
  }
  PositionBest& top = bests[winner];
  if (!top.stationarity_known) {
    // A raced position without a survivor (it can win only through a budget check's prior).
    const std::array<Index, 1> one{positions[winner]};
    const auto group = model.at_positions(X, one);
    StartPlan no_polish = plan;
    no_polish.polish_evaluations = 0;
    finish_position(*group, 0, no_polish, X.cols(), top);
    result.evaluations += 1;
  }
  result.argmax_position = positions[winner];
  result.witness = top.delta;
  result.phi_norm = phi_norms[winner];
  // S is evaluated at the stored witness with the same evaluator, so it is attained (a lower
  // bound); the certification below recomputes it from scratch.
  result.S = std::sqrt(best_value) / result.phi_norm;
  result.stationarity = top.stationarity;
  return result;
}

// The record's evidence: S recomputed from scratch at the witness by the model's plain path (not
// the incremental evaluator the search used), and, when `want_bound`, the certified upper bound
// with its scope; rf serves both from one pass over its weights.
void certify(const FeatureMap& model, const Matrix& X, bool want_bound, WsResult& result) {
  Matrix changed = X;
  changed.row(result.argmax_position) += result.witness.transpose();
  const std::array<Matrix, 2> samples{X, std::move(changed)};
  const PlainRecomputation plain = model.recompute_plain(samples, want_bound);
  const double recomputed =
      (plain.features[1] - plain.features[0]).norm() / checked_norm(plain.features[0]);
  result.cert_rel_err = result.S > 0.0 ? std::abs(recomputed - result.S) / result.S
                                       : (recomputed == result.S ? 0.0 : 1.0);
  if (plain.bound) {
    result.S_upper = plain.bound->value / result.phi_norm;
    result.S_upper_scope = static_cast<int>(plain.bound->scope);
  }
}

}  // namespace

int parse_min_total_sphere_starts(const std::string& text) {
  if (text == "auto") return -1;
  // Strict, as every integer key: digits only (no sign, no spaces; std::from_chars).
  int value = -1;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 0 || value > 100000) {
    throw InputError("min-total-sphere-starts = '" + text +
                     "': expected auto or an integer in [0, 100000]");
  }
  return value;
}

std::string min_total_sphere_starts_text(int value) {
  return value < 0 ? "auto" : std::to_string(value);
}

int min_total_sphere_starts(const WsOptions& options, ModelKind model) {
  if (options.min_total_sphere_starts >= 0) return options.min_total_sphere_starts;
  return traits(model).min_total_sphere_starts;
}

int sphere_starts_per_position(const WsOptions& options, ModelKind model, Index positions) {
  if (options.sphere_starts <= 0 || positions <= 0) return options.sphere_starts;
  const Index spread = (min_total_sphere_starts(options, model) + positions - 1) / positions;
  return static_cast<int>(std::max<Index>(options.sphere_starts, spread));
}

bool search_races(const WsOptions& options, ModelKind model, Index positions, Index d) {
  const StartPlan plan = plain_plan(options, sphere_starts_per_position(options, model, positions));
  return races(plan, static_cast<std::size_t>(positions), d);
}

WsResult estimate_word_sensitivity(const FeatureMap& model, const Matrix& X,
                                   const WsOptions& options, std::uint32_t master_seed,
                                   std::uint32_t task_id) {
  check_sample(model, X);
  check_options(options);
  const auto positions = options.positions.resolve(X.rows(), master_seed, task_id);
  const StartPlan plan = plain_plan(
      options,
      sphere_starts_per_position(options, model.spec().kind, static_cast<Index>(positions.size())));
  WsResult result = search(model, X, plan, positions, nullptr, master_seed, task_id);
  certify(model, X, options.upper_bound, result);
  return result;
}

WsResult recheck_with_more_budget(const FeatureMap& model, const Matrix& X,
                                  const WsOptions& options, int factor, const WsResult& plain,
                                  std::uint32_t master_seed, std::uint32_t task_id) {
  check_sample(model, X);
  check_options(options);
  if (factor < 2) throw std::invalid_argument("the budget check needs a factor of at least 2");
  if (plain.position_witnesses.size() != plain.positions.size()) {
    throw std::invalid_argument("the budget check needs the plain search's per-position points");
  }
  StartPlan plan =
      plain_plan(options, sphere_starts_per_position(options, model.spec().kind,
                                                     static_cast<Index>(plain.positions.size())));
  plan.factor = factor;
  WsResult result = search(model, X, plan, plain.positions, &plain, master_seed, task_id);
  certify(model, X, /*want_bound=*/false, result);  // the bound does not depend on the search
  return result;
}

void require_certified(const char* what, double value, double rel_err) {
  if (!(rel_err <= kCertificationTolerance)) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "certification failed: %s = %.17g differs from its recomputation from scratch "
                  "by %.3g relative (tolerance %.0e)",
                  what, value, rel_err, kCertificationTolerance);
    throw std::runtime_error(text);
  }
}

double relative_stationarity(const Vector& x, const Vector& g, double f, double radius) {
  Vector projected = g;
  const double norm = x.norm();
  if (norm >= radius * (1.0 - 1e-12) && norm > 0.0) {
    const double outward = g.dot(x) / (norm * norm);
    if (outward > 0.0) projected -= outward * x;  // the sphere blocks the outward part
  }
  const double size = projected.norm();
  if (f > 0.0) return radius * size / f;
  return size == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
}

double sensitivity_at(const FeatureMap& model, const Matrix& X, Index position,
                      const Vector& delta) {
  check_sample(model, X);
  if (position < 0 || position >= X.rows() || delta.size() != X.cols()) {
    throw std::invalid_argument("witness does not fit the sample");
  }
  const Vector phi = model.features(X);
  Matrix perturbed = X;
  perturbed.row(position) += delta.transpose();
  return (model.features(perturbed) - phi).norm() / checked_norm(phi);
}

}  // namespace wordsens
