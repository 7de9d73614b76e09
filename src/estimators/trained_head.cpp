#include "estimators/trained_head.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <utility>

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

std::vector<Vector> gen_starting_points(const FeatureMap& model, const Matrix& X, Index position,
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
  if (const GuidedStarts* guides = guided_starts(model); options.guided_start && guides) {
    if (const auto dir = guides->guided_direction(X, position);
        dir && dir->norm() > 0.0 && std::isfinite(dir->norm())) {
      starts.push_back(*dir * (radius / dir->norm()));
    }
  }
  return starts;
}

namespace {

// evaluate_generalization over the texts in one list, the training texts then X: fit_heads'
// order, so that no copy of the (possibly gigabyte-sized) training set is made.
std::vector<GenResult> evaluate_on_texts(const FeatureMap& model, std::span<const Matrix> texts,
                                         const Vector& train_labels, double test_label,
                                         const GenOptions& options, std::uint32_t master_seed,
                                         std::uint32_t task_id) {
  const Matrix& test = texts.back();
  const Index n = test.rows();
  const Index d = test.cols();
  const double y = test_label;
  const double y_changed = -y;  // the one-word change flips the meaning (docs/METHOD.md §7)

  HeadRequest request;
  for (const Training t : options.trainings) {
    (t == Training::finetune ? request.finetune : request.retrain) = true;
    for (const HeadObjective o : options.objectives) {
      if (t == Training::retrain && o == HeadObjective::align) request.retrain_projection = true;
    }
  }
  const HeadVectors heads = fit_heads(model, texts, train_labels, y, request);

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

  // Positions outer: one (possibly costly) evaluator per position serves every search, and every
  // start of every search climbs in one lockstep, so a round is one batched call of the
  // evaluator (rf reads its weights once per round, not twice per point). Each ascent takes the
  // steps it would take alone (up to the last bits of f); ties keep the earlier start.
  const double radius = std::sqrt(static_cast<double>(d));
  std::unique_ptr<PositionEvaluator> evaluator;  // the last position's, kept for the check below
  for (const Index i : options.positions.resolve(n, master_seed, task_id)) {
    evaluator = model.at_position(test, i);
    const auto starts = gen_starting_points(model, test, i, options, master_seed, task_id);
    std::vector<Vector> ascent_starts;
    std::vector<std::size_t> search_of;  // the search of each ascent, search by search
    for (std::size_t q = 0; q < searches.size(); ++q) {
      for (const Vector& start : starts) {
        ascent_starts.push_back(start);
        search_of.push_back(q);
      }
    }
    std::vector<const ReadoutTarget*> readouts;  // of each ascent
    for (const std::size_t q : search_of) readouts.push_back(&searches[q].readout);
    const std::vector<AscentResult> climbed =
        minimise_on_ball_lockstep(readout_objectives(*evaluator, std::move(readouts)), radius,
                                  std::move(ascent_starts), options.ascent);
    for (std::size_t a = 0; a < climbed.size(); ++a) {
      Search& s = searches[search_of[a]];
      const AscentResult& r = climbed[a];
      s.evaluations += r.evaluations;
      if (r.value < s.best_value) {
        s.best_value = r.value;
        s.best_position = i;
        s.best_delta = r.argmax;
      }
    }
  }

  // Reported numbers are recomputed from scratch at the best point found, and checked against
  // the incremental evaluator the search used at that point (the record's certification). The
  // changed texts of all searches go through the plain path together: rf's full sampler serves
  // them from one pass over V instead of one pass each.
  std::vector<Matrix> changed_texts;
  for (const Search& s : searches) {
    changed_texts.push_back(test);
    changed_texts.back().row(s.best_position) += s.best_delta.transpose();
  }
  const std::vector<Vector> phi_of_changed =
      changed_texts.empty() ? std::vector<Vector>{}
                            : model.recompute_plain(changed_texts, /*want_bound=*/false).features;
  std::vector<GenResult> results;
  for (std::size_t q = 0; q < searches.size(); ++q) {
    const Search& s = searches[q];
    const Vector& phi_changed = phi_of_changed[q];
    if (!evaluator || evaluator->position() != s.best_position) {
      evaluator = model.at_position(test, s.best_position);
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

}  // namespace

std::vector<GenResult> evaluate_generalization(const FeatureMap& model, const GenProblem& problem,
                                               const GenOptions& options, std::uint32_t master_seed,
                                               std::uint32_t task_id) {
  std::vector<Matrix> texts(problem.train.begin(), problem.train.end());
  texts.push_back(problem.test);
  return evaluate_on_texts(model, texts, problem.train_labels, problem.test_label, options,
                           master_seed, task_id);
}

std::vector<GenResult> evaluate_generalization(const FeatureMap& model, GenProblem&& problem,
                                               const GenOptions& options, std::uint32_t master_seed,
                                               std::uint32_t task_id) {
  std::vector<Matrix> texts = std::move(problem.train);
  texts.push_back(std::move(problem.test));
  return evaluate_on_texts(model, texts, problem.train_labels, problem.test_label, options,
                           master_seed, task_id);
}

}  // namespace wordsens
