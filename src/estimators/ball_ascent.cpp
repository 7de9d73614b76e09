#include "estimators/ball_ascent.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

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

AscentResult maximise_on_ball(const BallObjective& f, double radius, Vector start,
                              const AscentOptions& options) {
  if (!(radius >= 0.0) || !std::isfinite(radius)) {
    throw std::invalid_argument("maximise_on_ball: radius must be finite and non-negative");
  }
  if (options.max_evaluations < 1 || options.patience < 1) {
    throw std::invalid_argument("maximise_on_ball: max_evaluations and patience must be >= 1");
  }
  Vector x = std::move(start);
  project_onto_ball(x, radius);
  Vector g(x.size());
  double fx = f(x, g);
  AscentResult result{x, fx, 1};
  if (!std::isfinite(fx)) {
    throw std::runtime_error("maximise_on_ball: the objective is not finite at the start");
  }

  double gnorm = g.norm();
  // A zero gradient is a stationary point (e.g. Δ = 0 for the WS objective): there is no
  // ascent direction to follow, so the start is returned as it is.
  if (!(gnorm > 0.0) || !std::isfinite(gnorm) || radius == 0.0) return result;
  // The step is a distance along the unit gradient, not a multiple of the gradient: the
  // objectives of piecewise-smooth models (ReLU, row-normalised ReLU attention) have narrow
  // spikes where ‖g‖ jumps by orders of magnitude, and a step proportional to ‖g‖ would then
  // throw the iterate across the ball. No useful move is longer than the diameter.
  const double max_step = 2.0 * radius;
  double step =
      std::min(options.initial_step > 0.0 ? options.initial_step : 0.1 * radius, max_step);

  Vector y(x.size());
  Vector gy(x.size());
  int stalled = 0;
  bool stopped = false;  // by a rule other than the budget
  while (result.evaluations < options.max_evaluations && stalled < options.patience) {
    y = x + (step / gnorm) * g;
    project_onto_ball(y, radius);
    if ((y - x).norm() <= kMinMove * radius) {
      // Moving along g is blocked by the sphere (g ∥ x: a KKT point) or the step underflowed;
      // neither a larger nor a smaller step can help.
      stopped = true;
      break;
    }
    const double fy = f(y, gy);
    ++result.evaluations;
    // Rejecting steps that do not increase f makes the iterate sequence monotone; NaN is
    // treated as no increase (it can appear far outside the region a model was built for).
    if (fy > fx) {
      const double gain = relative_gain(fy, result.value);
      std::swap(x, y);
      std::swap(g, gy);
      fx = fy;
      gnorm = g.norm();
      result.argmax = x;
      result.value = fx;
      stalled = gain < options.relative_tolerance ? stalled + 1 : 0;
      step = std::min(step * kGrow, max_step);
      if (!(gnorm > 0.0) || !std::isfinite(gnorm)) {  // stationary (or broken) point
        stopped = true;
        break;
      }
    } else {
      step *= kShrink;
      ++stalled;
    }
  }
  result.at_budget = !stopped && stalled < options.patience;
  return result;
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
