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
  double step = options.initial_step > 0.0 ? options.initial_step : 0.1 * radius / gnorm;

  Vector y(x.size());
  Vector gy(x.size());
  int stalled = 0;
  while (result.evaluations < options.max_evaluations && stalled < options.patience) {
    y = x + step * g;
    project_onto_ball(y, radius);
    if ((y - x).norm() <= kMinMove * radius) {
      // Moving along g is blocked by the sphere (g ∥ x) or the step underflowed: a larger
      // step cannot help in the first case and a smaller one cannot in the second.
      if (step * gnorm <= kMinMove * radius) break;
      if ((x + step * g).norm() > radius) break;
      step *= kGrow;
      ++stalled;
      continue;
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
      step *= kGrow;
      if (!(gnorm > 0.0)) break;  // reached a stationary point exactly
    } else {
      step *= kShrink;
      ++stalled;
    }
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
