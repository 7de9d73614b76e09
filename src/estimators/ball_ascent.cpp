#include "estimators/ball_ascent.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace wordsens {
namespace {

// Step multipliers. Growing by less than the shrink factor keeps the step oscillating around
// the largest one that still makes progress instead of overshooting every other iteration.
constexpr double kGrow = 1.5;
constexpr double kShrink = 0.5;
// A projected step that moves x by less than this (relative to the radius) cannot change f
// in double precision: x is a fixed point of the projected gradient map, i.e. a KKT point.
constexpr double kMinMove = 1e-15;

double relative_gain(double new_value, double old_value) {
  const double scale = std::max(std::abs(old_value), std::numeric_limits<double>::min());
  return (new_value - old_value) / scale;
}

}  // namespace

void project_onto_ball(Vector& x, double radius) {
  const double norm = x.norm();
  if (norm > radius) x *= radius / norm;
}

void project_onto_balls(Vector& x, double radius, Index block) {
  if (block <= 0 || block == x.size()) {
    project_onto_ball(x, radius);
    return;
  }
  if (x.size() % block != 0) {
    throw std::invalid_argument("project_onto_balls: dimension is not a multiple of the block");
  }
  for (Index b0 = 0; b0 < x.size(); b0 += block) {
    auto part = x.segment(b0, block);
    const double norm = part.norm();
    if (norm > radius) part *= radius / norm;
  }
}

namespace {

void check_ascent_arguments(double radius, const AscentOptions& options) {
  if (!(radius >= 0.0) || !std::isfinite(radius)) {
    throw std::invalid_argument("maximise_on_ball: radius must be finite and non-negative");
  }
  if (options.max_evaluations < 1 || options.patience < 1) {
    throw std::invalid_argument("maximise_on_ball: max_evaluations and patience must be >= 1");
  }
}

/// The ascent after its first evaluation (fx, g at its start).
void begin(AscentState& a, double radius, const AscentOptions& options) {
  a.result = {a.x, a.fx, 1, false};
  if (!std::isfinite(a.fx)) {
    throw std::runtime_error("maximise_on_ball: the objective is not finite at the start");
  }
  a.gnorm = a.g.norm();
  // A zero gradient is a stationary point (e.g. Δ = 0 for the WS objective): there is no
  // ascent direction to follow, so the start is returned as it is.
  if (!(a.gnorm > 0.0) || !std::isfinite(a.gnorm) || radius == 0.0) {
    a.done = true;
    return;
  }
  // The step is a distance along the unit gradient, not a multiple of the gradient: the
  // objectives of piecewise-smooth models (ReLU, row-normalised ReLU attention) have narrow
  // spikes where ‖g‖ jumps by orders of magnitude, and a step proportional to ‖g‖ would then
  // throw the iterate across the ball. No useful move is longer than the diameter.
  a.step = std::min(options.initial_step > 0.0 ? options.initial_step : 0.1 * radius, 2.0 * radius);
}

void finish(AscentState& a, const AscentOptions& options) {
  a.result.at_budget = !a.stopped && a.stalled < options.patience;
  a.done = true;
}

/// The trial point y of a running ascent, or false when the ascent ends before it or pauses
/// (it has used `limit` evaluations; a pause changes nothing, the next advance goes on from it).
bool propose(AscentState& a, double radius, const AscentOptions& options, long limit, Vector& y) {
  if (a.result.evaluations >= options.max_evaluations || a.stalled >= options.patience) {
    finish(a, options);
    return false;
  }
  if (a.result.evaluations >= limit) return false;
  y = a.x + (a.step / a.gnorm) * a.g;
  project_onto_balls(y, radius, options.ball_block);
  if ((y - a.x).norm() <= kMinMove * radius) {
    // Moving along g is blocked by the sphere (g ∥ x: a KKT point) or the step underflowed;
    // neither a larger nor a smaller step can help.
    a.stopped = true;
    finish(a, options);
    return false;
  }
  return true;
}

/// The ascent after f(y) = fy, ∇f(y) = gy.
void accept_or_shrink(AscentState& a, const Vector& y, double fy, const Vector& gy, double radius,
                      const AscentOptions& options) {
  ++a.result.evaluations;
  // Rejecting steps that do not increase f makes the iterate sequence monotone; NaN is
  // treated as no increase (it can appear far outside the region a model was built for).
  if (fy > a.fx) {
    const double gain = relative_gain(fy, a.result.value);
    a.x = y;
    a.g = gy;
    a.fx = fy;
    a.gnorm = a.g.norm();
    a.result.argmax = a.x;
    a.result.value = a.fx;
    a.stalled = gain < options.relative_tolerance ? a.stalled + 1 : 0;
    a.step = std::min(a.step * kGrow, 2.0 * radius);
    if (!(a.gnorm > 0.0) || !std::isfinite(a.gnorm)) {  // stationary (or broken) point
      a.stopped = true;
      finish(a, options);
    }
  } else {
    a.step *= kShrink;
    ++a.stalled;
  }
}

}  // namespace

AscentState::AscentState(Vector start) : x(std::move(start)) {}

void advance_in_lockstep(const BallBatchObjective& f, double radius, std::span<AscentState> ascents,
                         const AscentOptions& options, long limit) {
  check_ascent_arguments(radius, options);
  if (limit < 1) throw std::invalid_argument("advance_in_lockstep: the limit must be >= 1");
  if (ascents.empty()) return;
  const Index dim = ascents.front().x.size();
  Matrix points(dim, static_cast<Index>(ascents.size()));
  std::vector<std::size_t> running;
  // The first evaluation, at the projected start, of every ascent that has not had it.
  for (std::size_t b = 0; b < ascents.size(); ++b) {
    AscentState& a = ascents[b];
    if (a.x.size() != dim) {
      throw std::invalid_argument("maximise_on_ball: the starts differ in dimension");
    }
    if (a.begun) continue;
    project_onto_balls(a.x, radius, options.ball_block);
    points.col(static_cast<Index>(running.size())) = a.x;
    running.push_back(b);
  }
  Vector values;
  Matrix grads;
  if (!running.empty()) {
    f(points.leftCols(static_cast<Index>(running.size())), running, values, grads);
    for (std::size_t c = 0; c < running.size(); ++c) {
      AscentState& a = ascents[running[c]];
      a.fx = values(static_cast<Index>(c));
      a.g = grads.col(static_cast<Index>(c));
      a.begun = true;
      begin(a, radius, options);
    }
  }
  Vector y;
  Vector gy;
  for (;;) {
    running.clear();
    for (std::size_t b = 0; b < ascents.size(); ++b) {
      if (ascents[b].done) continue;
      if (propose(ascents[b], radius, options, limit, y)) {
        points.col(static_cast<Index>(running.size())) = y;
        running.push_back(b);
      }
    }
    if (running.empty()) break;
    const Index width = static_cast<Index>(running.size());
    f(points.leftCols(width), running, values, grads);
    for (Index c = 0; c < width; ++c) {
      y = points.col(c);
      gy = grads.col(c);
      accept_or_shrink(ascents[running[static_cast<std::size_t>(c)]], y, values(c), gy, radius,
                       options);
    }
  }
}

std::vector<AscentResult> maximise_on_ball_lockstep(const BallBatchObjective& f, double radius,
                                                    std::vector<Vector> starts,
                                                    const AscentOptions& options) {
  check_ascent_arguments(radius, options);
  std::vector<AscentState> ascents;
  ascents.reserve(starts.size());
  for (Vector& start : starts) ascents.emplace_back(std::move(start));
  advance_in_lockstep(f, radius, ascents, options, options.max_evaluations);
  std::vector<AscentResult> results;
  results.reserve(ascents.size());
  for (AscentState& a : ascents) results.push_back(std::move(a.result));
  return results;
}

AscentResult maximise_on_ball(const BallObjective& f, double radius, Vector start,
                              const AscentOptions& options) {
  const BallBatchObjective one_at_a_time = [&f](const Matrix& xs, std::span<const std::size_t>,
                                                Vector& values, Matrix& grads) {
    values.resize(xs.cols());
    grads.resize(xs.rows(), xs.cols());
    Vector x(xs.rows());
    Vector g(xs.rows());
    for (Index c = 0; c < xs.cols(); ++c) {
      x = xs.col(c);
      values(c) = f(x, g);
      grads.col(c) = g;
    }
  };
  std::vector<Vector> starts;
  starts.push_back(std::move(start));
  return std::move(
      maximise_on_ball_lockstep(one_at_a_time, radius, std::move(starts), options).front());
}

std::vector<AscentResult> minimise_on_ball_lockstep(const BallBatchObjective& f, double radius,
                                                    std::vector<Vector> starts,
                                                    const AscentOptions& options) {
  const BallBatchObjective negated = [&f](const Matrix& xs, std::span<const std::size_t> ascents,
                                          Vector& values, Matrix& grads) {
    f(xs, ascents, values, grads);
    grads = -grads;
    values = -values;
  };
  std::vector<AscentResult> results =
      maximise_on_ball_lockstep(negated, radius, std::move(starts), options);
  for (AscentResult& r : results) r.value = -r.value;
  return results;
}

AscentResult pattern_search_on_ball(const BallValue& f, double radius, Vector start,
                                    double start_value, double initial_step, double min_step,
                                    int max_evaluations) {
  if (!(initial_step > 0.0) || !(min_step > 0.0) || max_evaluations < 0) {
    throw std::invalid_argument("pattern_search_on_ball: steps must be positive");
  }
  project_onto_ball(start, radius);
  AscentResult result{std::move(start), start_value, 0};
  Vector& x = result.argmax;
  Vector y(x.size());
  double step = initial_step;
  while (step >= min_step && result.evaluations < max_evaluations) {
    bool improved = false;
    for (Index j = 0; j < x.size() && !improved; ++j) {
      for (const double sign : {1.0, -1.0}) {
        if (result.evaluations >= max_evaluations) break;
        y = x;
        y(j) += sign * step;
        project_onto_ball(y, radius);
        const double fy = f(y);
        ++result.evaluations;
        if (fy > result.value) {
          x = y;
          result.value = fy;
          improved = true;
          break;
        }
      }
    }
    if (!improved) step *= 0.5;
  }
  return result;
}

AscentResult minimise_on_ball(const BallObjective& f, double radius, Vector start,
                              const AscentOptions& options) {
  const BallObjective negated = [&f](const Vector& x, Vector& grad) {
    const double value = f(x, grad);
    grad = -grad;
    return -value;
  };
  AscentResult result = maximise_on_ball(negated, radius, std::move(start), options);
  result.value = -result.value;
  return result;
}

}  // namespace wordsens
