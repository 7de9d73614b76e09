#include "estimators/trained_head.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/errors.hpp"
#include "core/gaussian.hpp"
#include "estimators/head_objectives.hpp"
#include "estimators/min_norm_head.hpp"

namespace wordsens {

std::string to_string(Training t) { return t == Training::finetune ? "finetune" : "retrain"; }

std::string to_string(HeadObjective o) { return o == HeadObjective::loss ? "loss" : "align"; }

Training parse_training(const std::string& text) {
  if (text == "finetune") return Training::finetune;
  if (text == "retrain") return Training::retrain;
  throw InputError("unknown training mode '" + text + "' (expected finetune|retrain)");
}

HeadObjective parse_objective(const std::string& text) {
  if (text == "loss") return HeadObjective::loss;
  if (text == "align") return HeadObjective::align;
  throw InputError("unknown head objective '" + text + "' (expected loss|align)");
}

std::unique_ptr<FeatureMap> make_gen_feature_map(const ModelSpec& spec, WeightKey key,
                                                 const GenProblem& problem,
                                                 const PositionSet& positions) {
  std::vector<const Matrix*> samples;
  samples.reserve(problem.train.size() + 1);
  for (const Matrix& X : problem.train) samples.push_back(&X);
  samples.push_back(&problem.test);  // fit_heads' order: [train; test]
  return make_feature_map(
      spec, key, positions.resolve(problem.test.rows(), key.master_seed, key.task_id), samples);
}

namespace {

// Rows of the ascent_starts matrix used here; WS uses the first rows of the same matrices, so
// the head's random starts are offset to stay independent of them.
constexpr Index kSphereStartRow = 1000;
constexpr Index kNearOriginStartRow = 2000;

/// Starting points for one position, as in WS: random points on the sphere ‖Δ‖ = √d, points
/// 0.1·N(0, I) near the origin, and the model's guided direction scaled to the sphere.
std::vector<Vector> starting_points(const FeatureMap& model, const Matrix& X, Index position,
                                    const GenOptions& options, std::uint32_t master_seed,
                                    std::uint32_t task_id) {
  const Index d = X.cols();
  const double radius = std::sqrt(static_cast<double>(d));
  const GaussianMatrix random(
      {Philox(master_seed, Stream::ascent_starts), task_id, static_cast<std::uint32_t>(position)},
      1.0);
  std::vector<Vector> starts;
  for (int s = 0; s < options.sphere_starts; ++s) {
    const Vector g = random.row_segment(kSphereStartRow + s, 0, d);
    starts.push_back(g * (radius / g.norm()));
  }
  for (int s = 0; s < options.near_origin_starts; ++s) {
    starts.push_back(0.1 * random.row_segment(kNearOriginStartRow + s, 0, d));
  }
  if (options.guided_start) {
    if (const auto dir = model.guided_direction(X, position);
        dir && dir->norm() > 0.0 && std::isfinite(dir->norm())) {
      starts.push_back(*dir * (radius / dir->norm()));
    }
  }
  return starts;
}

struct Search {
  Training training;
  HeadObjective objective;
  const Vector* theta;
  ReadoutTarget readout;
  // Filled by the search; start from "nothing found" (an infinite objective).
  double best_value;
  Index best_position;
  Vector best_delta;
  long evaluations;
};

}  // namespace

std::vector<GenResult> evaluate_generalization(const FeatureMap& model, const GenProblem& problem,
                                               const GenOptions& options, std::uint32_t master_seed,
                                               std::uint32_t task_id) {
  const Index n = problem.test.rows();
  const Index d = problem.test.cols();
  const double y = problem.test_label;
  const double y_changed = -y;  // the one-word change flips the meaning (docs/METHOD.md §7)

  HeadRequest request;
  for (const Training t : options.trainings) {
    (t == Training::finetune ? request.finetune : request.retrain) = true;
    for (const HeadObjective o : options.objectives) {
      if (t == Training::retrain && o == HeadObjective::align) request.retrain_projection = true;
    }
  }
  const HeadVectors heads =
      fit_heads(model, problem.train, problem.train_labels, problem.test, y, request);

  std::vector<Search> searches;
  for (const Training t : options.trainings) {
    const Vector& theta = t == Training::finetune ? heads.theta_finetune : heads.theta_retrain;
    for (const HeadObjective o : options.objectives) {
      ReadoutTarget readout =
          o == HeadObjective::loss
              ? loss_target(theta, y_changed)
              : align_target(t == Training::finetune ? heads.phi_x : heads.u_retrain);
      searches.push_back({t, o, &theta, std::move(readout), std::numeric_limits<double>::infinity(),
                          0, Vector::Zero(d), 0});
    }
  }

  // Positions outer, searches inner: one (possibly costly) evaluator per position serves them all.
  const double radius = std::sqrt(static_cast<double>(d));
  for (const Index i : options.positions.resolve(n, master_seed, task_id)) {
    const auto evaluator = model.at_position(problem.test, i);
    const auto starts = starting_points(model, problem.test, i, options, master_seed, task_id);
    for (Search& s : searches) {
      const BallObjective f = readout_objective(*evaluator, s.readout);
      for (const Vector& start : starts) {
        const AscentResult r = minimise_on_ball(f, radius, start, options.ascent);
        s.evaluations += r.evaluations;
        if (r.value < s.best_value) {
          s.best_value = r.value;
          s.best_position = i;
          s.best_delta = r.argmax;
        }
      }
    }
  }

  // Reported numbers are recomputed from scratch at the best point found, and checked against
  // the incremental evaluator the search used at that point (the record's certification).
  std::vector<GenResult> results;
  std::unique_ptr<PositionEvaluator> evaluator;
  for (const Search& s : searches) {
    Matrix changed = problem.test;
    changed.row(s.best_position) += s.best_delta.transpose();
    const Vector phi_changed = model.features(changed);
    if (!evaluator || evaluator->position() != s.best_position) {
      evaluator = model.at_position(problem.test, s.best_position);
    }
    Vector phi_search(phi_changed.size());
    evaluator->features_at(s.best_delta, phi_search);
    GenResult r;
    r.training = s.training;
    r.objective = s.objective;
    r.t0 = heads.phi_x.dot(heads.theta_star);
    r.t1 = heads.phi_x.dot(*s.theta);
    r.D0 = phi_changed.dot(heads.theta_star);
    r.D1 = phi_changed.dot(*s.theta);
    r.E = (r.D1 - y_changed) * (r.D1 - y_changed);
    r.cond_K = heads.cond_K;
    r.cert_rel_err = std::abs(r.D1 - phi_search.dot(*s.theta)) / std::max(1.0, std::abs(r.D1));
    r.position = s.best_position;
    r.delta = s.best_delta;
    r.evaluations = s.evaluations;
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace wordsens
