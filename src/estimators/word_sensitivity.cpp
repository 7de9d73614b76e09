#include "estimators/word_sensitivity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/gaussian.hpp"

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

/// The best ascent over all starts of one position.
struct PositionBest {
  double value = -std::numeric_limits<double>::infinity();  // f_i(Δ) = ‖φ(X^i(Δ)) − φ(X)‖²
  Vector delta;
  long evaluations = 0;
};

PositionBest maximise_position(const FeatureMap& model, const Matrix& X, Index position,
                               const WsOptions& options, std::uint32_t master_seed,
                               std::uint32_t task_id, double& phi_norm) {
  const auto evaluator = model.at_position(X, position);
  const Vector& phi = evaluator->base_features();
  phi_norm = checked_norm(phi);
  Vector phi_delta(phi.size());
  Vector residual(phi.size());
  const BallObjective objective = [&](const Vector& delta, Vector& grad) {
    evaluator->features_at(delta, phi_delta);
    // The cotangent 2(φ' − φ) in place, no n·d temporary (memory traffic dominates at the
    // paper's sizes); scaling by 2 and by 1/4 is exact, so f is the same number.
    residual = 2.0 * (phi_delta - phi);
    evaluator->pullback(residual, grad);
    return 0.25 * residual.squaredNorm();
  };

  const Index d = X.cols();
  const double radius = std::sqrt(static_cast<double>(d));
  PositionBest best;
  const auto run = [&](Vector start) {
    AscentResult r = maximise_on_ball(objective, radius, std::move(start), options.ascent);
    best.evaluations += r.evaluations;
    // Strictly greater: ties keep the earlier start, so the order of starts is the tie rule.
    if (r.value > best.value) {
      best.value = r.value;
      best.delta = std::move(r.argmax);
    }
  };

  // Start s is row s of the position's own random matrix, so the starts of one position never
  // depend on other positions or tasks. The sphere starts are the best of `screen_points`
  // random sphere points by f alone (no gradient): one ascent per basin is what costs, and
  // screening picks the basins worth climbing, which matters most in low dimension where
  // f_i has few, well-separated local maxima on the sphere.
  const GaussianMatrix starts(
      {Philox(master_seed, Stream::ascent_starts), task_id, static_cast<std::uint32_t>(position)},
      1.0);
  const Index screened =
      options.sphere_starts > 0 ? std::max(options.screen_points, options.sphere_starts) : 0;
  std::vector<std::pair<double, Vector>> candidates;
  candidates.reserve(static_cast<std::size_t>(screened));
  for (Index row = 0; row < screened; ++row) {
    Vector v = starts.row_segment(row, 0, d);
    v *= radius / v.norm();
    evaluator->features_at(v, phi_delta);
    candidates.emplace_back((phi_delta - phi).squaredNorm(), std::move(v));
  }
  best.evaluations += screened;
  // Stable: equal values keep the row order, so the choice is a pure function of the key.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (int s = 0; s < options.sphere_starts; ++s) {
    run(std::move(candidates[static_cast<std::size_t>(s)].second));
  }
  Index row = screened;
  for (int s = 0; s < options.near_origin_starts; ++s, ++row) {
    run(0.1 * starts.row_segment(row, 0, d));
  }
  if (options.guided_start) {
    if (auto direction = model.guided_direction(X, position)) {
      const double norm = direction->norm();
      if (norm > 0.0 && std::isfinite(norm)) run(*direction * (radius / norm));
    }
  }
  // Row-normalised ReLU attention jumps where a row's only positive score crosses 0, and
  // ReLU maps have kinks: gradient steps stall next to such maxima. In low dimension a
  // compass search around the best point is cheap and climbs onto them.
  if (d <= options.polish_max_dim && options.polish_evaluations > 0 && best.delta.size() > 0) {
    const BallValue value = [&](const Vector& delta) {
      evaluator->features_at(delta, phi_delta);
      return (phi_delta - phi).squaredNorm();
    };
    AscentResult polished =
        pattern_search_on_ball(value, radius, best.delta, best.value, 0.05 * radius, 1e-10 * radius,
                               options.polish_evaluations);
    best.evaluations += polished.evaluations;
    best.value = polished.value;
    best.delta = std::move(polished.argmax);
  }
  return best;
}

}  // namespace

int parse_min_total_sphere_starts(const std::string& text) {
  if (text == "auto") return -1;
  std::size_t used = 0;
  long value = -1;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || value < 0 || value > 100000) {
    throw std::invalid_argument("min-total-sphere-starts = '" + text +
                                "': expected auto or an integer in 0 .. 100000");
  }
  return static_cast<int>(value);
}

std::string min_total_sphere_starts_text(int value) {
  return value < 0 ? "auto" : std::to_string(value);
}

int min_total_sphere_starts(const WsOptions& options, const std::string& model) {
  if (options.min_total_sphere_starts >= 0) return options.min_total_sphere_starts;
  return model == "raf" || model == "raf_relu" ? kMinTotalSphereStartsAttention : 0;
}

int sphere_starts_per_position(const WsOptions& options, const std::string& model,
                               Index positions) {
  if (options.sphere_starts <= 0 || positions <= 0) return options.sphere_starts;
  const Index spread = (min_total_sphere_starts(options, model) + positions - 1) / positions;
  return static_cast<int>(std::max<Index>(options.sphere_starts, spread));
}

WsResult estimate_word_sensitivity(const FeatureMap& model, const Matrix& X,
                                   const WsOptions& options, std::uint32_t master_seed,
                                   std::uint32_t task_id) {
  check_sample(model, X);
  if (options.sphere_starts < 0 || options.near_origin_starts < 0 || options.screen_points < 0 ||
      options.min_total_sphere_starts < -1) {
    throw std::invalid_argument("the numbers of starts must be non-negative");
  }
  if (options.sphere_starts + options.near_origin_starts == 0 && !options.guided_start) {
    throw std::invalid_argument("the word-sensitivity estimator needs at least one start");
  }
  WsResult result;
  result.positions = options.positions.resolve(X.rows(), master_seed, task_id);
  result.position_maxima.reserve(result.positions.size());
  WsOptions per_position = options;
  per_position.sphere_starts = sphere_starts_per_position(
      options, model.spec().name, static_cast<Index>(result.positions.size()));
  double best_value = -std::numeric_limits<double>::infinity();
  for (const Index position : result.positions) {
    double phi_norm = 0.0;
    PositionBest best =
        maximise_position(model, X, position, per_position, master_seed, task_id, phi_norm);
    result.evaluations += best.evaluations;
    if (best.delta.size() == 0) {
      // Only possible when the guided start was the sole start and the model offered none.
      throw std::runtime_error("no start available for position " + std::to_string(position));
    }
    result.position_maxima.push_back(std::sqrt(best.value) / phi_norm);
    if (best.value > best_value) {
      best_value = best.value;
      result.argmax_position = position;
      result.witness = std::move(best.delta);
      result.phi_norm = phi_norm;
    }
  }
  // S is evaluated at the stored witness with the same evaluator, so it is attained (a lower
  // bound); sensitivity_at recomputes it from scratch as the certification check.
  result.S = std::sqrt(best_value) / result.phi_norm;
  if (options.upper_bound) {
    if (const auto bound = model.sensitivity_upper_bound(X)) {
      result.S_upper = bound->value / result.phi_norm;
    }
  }
  return result;
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
