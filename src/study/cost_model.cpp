#include "study/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <stdexcept>
#include <vector>

#include "estimators/word_sensitivity.hpp"
#include "models/shared/model_kind.hpp"

namespace wordsens {

namespace {

// The task's model's prices under the mask its model is built with (model_spec: the study's
// mask applies to attention models only).
const ModelCosts& costs_of(const TaskSpec& t, const StudyConfig& config) {
  return model_costs(t.model, model_spec(t, config).mask);
}

CostShape shape_of(const TaskSpec& t) {
  return {static_cast<double>(t.n), static_cast<double>(t.d), static_cast<double>(t.k),
          static_cast<double>(t.layers), static_cast<double>(t.heads)};
}

CostOptions cost_options(const StudyConfig& config) {
  return {config.search.upper_bound, config.search.guided_start,
          config.rf_sampling == RfSampling::marginal};
}

// Random sphere points screened per position (WsOptions::screen_points): f only, no gradient.
constexpr double kScreenPoints = 64.0;

}  // namespace

Index positions_examined(const TaskSpec& task, const StudyConfig& config) {
  switch (config.search.positions.kind) {
    case PositionSet::Kind::first:
      return 1;
    case PositionSet::Kind::random:
      return std::min<Index>(task.n, config.search.positions.count);
    case PositionSet::Kind::all:
      break;
  }
  return task.n;
}

// Every model's typical count was measured at the default budget (max-evals = 300). A share q of
// the ascents runs until any budget b (SearchLengths::ws_share_at_budget), the others converge
// after c evaluations on average, c = (E₃₀₀ − 300·q)/(1 − q) from the measured count E₃₀₀:
// E(b) = q·b + (1 − q)·min(c, b). With q = 0 that is min(E₃₀₀, b). raf_relu (q = 0.45) at
// n = 150, d = 384: 187, 120 and 76 evaluations per start measured at b = 300, 150 and 80;
// 180, 112 and 80 priced.
double expected_evaluations_per_start(const TaskSpec& task, const StudyConfig& config) {
  return expected_evaluations_within(task, config, static_cast<double>(config.search.max_evals));
}

double expected_evaluations_within(const TaskSpec& task, const StudyConfig& config, double budget) {
  constexpr double kCalibrationBudget = 300.0;
  const SearchLengths& lengths = search_lengths(task.model, model_spec(task, config).mask);
  const double typical = lengths.ws_evaluations_per_start;
  const double q = std::clamp(lengths.ws_share_at_budget, 0.0, 0.99);
  const double converged = std::max(0.0, (typical - kCalibrationBudget * q) / (1.0 - q));
  return q * budget + (1.0 - q) * std::min(converged, budget);
}

// In low dimension each position's best point is polished by a compass search, which runs the
// share kPolishShare of its budget (models/calibration.tsv).
double expected_polish_evaluations(const TaskSpec& task, const WsOptions& options) {
  if (task.d > options.polish_max_dim) return 0.0;
  return kPolishShare * static_cast<double>(options.polish_evaluations);
}

// The search of a ws task with one changed word: per examined position, the evaluator's set-up,
// the screened sphere points and the ascents' evaluations (gen's searches: gen_search_cost).
double single_word_search_cost(const TaskSpec& task, const StudyConfig& config) {
  const Index examined = positions_examined(task, config);
  const double positions = static_cast<double>(examined);
  const WsOptions ws = ws_options(config);
  const double sphere = static_cast<double>(sphere_starts_per_position(ws, task.model, examined));
  const double starts =
      sphere + config.search.near_origin_starts + (config.search.guided_start ? 1.0 : 0.0);
  double climbing = starts * expected_evaluations_per_start(task, config);
  if (search_races(ws, task.model, examined, task.d)) {
    // The race: every ascent up to the cut, then the survivors on, priced as running to the
    // budget (they are the ascents still climbing best, and they climb in smaller rounds).
    // raf_relu at n = 250, d = 768: 67 600 ascent evaluations measured, 67 900 priced.
    const double cut = static_cast<double>(ws.race_evaluations);
    const double budget = static_cast<double>(config.search.max_evals);
    const double survivors =
        std::min(static_cast<double>(ws.race_survivors), starts * positions) / positions;
    climbing = starts * expected_evaluations_within(task, config, cut) + survivors * (budget - cut);
  }
  const double evaluations =
      0.5 * std::max(kScreenPoints, sphere) + climbing + expected_polish_evaluations(task, ws);
  const ModelCosts& costs = costs_of(task, config);
  const CostShape shape = shape_of(task);
  double search = costs.sample_setup(shape) +
                  positions * (costs.position_setup(shape) + evaluations * costs.evaluation(shape));
  // The budget check reruns the search with f× the starts (each ascent usually stops on its
  // patience rule long before the f× larger budget): about f more searches.
  if (is_budget_check_task(task, config)) search *= 1.0 + config.search.budget_check;
  return search;
}

// The joint searches of a ws task with m ≥ 2 changed words (estimators/multi_word.cpp): one per
// examined set, from the guided, sphere and near-origin starts (greedy adds the warm start);
// greedy first searches every single word, then tries each word not yet in the set at each size.
double multi_word_search_cost(const TaskSpec& task, const StudyConfig& config) {
  const MultiWordOptions options = multi_word_options(config, task.words);
  const double starts = std::max(options.ws.sphere_starts, 1) + options.ws.near_origin_starts +
                        (options.ws.guided_start ? 1.0 : 0.0);
  const ModelCosts& costs = costs_of(task, config);
  const CostShape shape = shape_of(task);
  const double growth = costs.multi_word_growth(static_cast<double>(task.words));
  const double per_start = std::min(expected_evaluations_per_start(task, config) * growth,
                                    static_cast<double>(config.search.max_evals));
  const auto set_cost = [&](double s, double extra_starts) {
    return costs.set_setup(shape, cost_options(config), s) +
           (starts + extra_starts) * per_start * costs.set_evaluation(shape, s);
  };
  const double m = static_cast<double>(task.words), n = static_cast<double>(task.n);
  switch (options.sets.kind) {
    case WordSetFamily::Kind::first:
      return set_cost(m, 0.0);
    case WordSetFamily::Kind::random:
      return static_cast<double>(options.sets.count) * set_cost(m, 0.0);
    case WordSetFamily::Kind::greedy: {
      TaskSpec single = task;
      single.words = 1;
      StudyConfig all = config;
      all.search.positions = {PositionSet::Kind::all, 0};
      double cost = single_word_search_cost(single, all);
      for (double size = 2.0; size <= m; size += 1.0)
        cost += (n - size + 1.0) * set_cost(size, 1.0);
      return cost;
    }
  }
  return 0.0;
}

// One of gen's searches (a training × objective pair): per examined position the evaluator's
// set-up and its ascents (sphere, near-origin and guided starts; gen screens no sphere points),
// whose points the model prices as gen_point_evaluation (the searches climb in lockstep).
double gen_search_cost(const TaskSpec& task, const StudyConfig& config) {
  const double positions = static_cast<double>(positions_examined(task, config));
  const double starts =
      static_cast<double>(config.search.sphere_starts + config.search.near_origin_starts) +
      (config.search.guided_start ? 1.0 : 0.0);
  const ModelCosts& costs = costs_of(task, config);
  const CostShape shape = shape_of(task);
  const double per_start =
      std::min(search_lengths(task.model, model_spec(task, config).mask).gen_evaluations_per_start,
               static_cast<double>(config.search.max_evals));
  return costs.sample_setup(shape) +
         positions *
             (costs.position_setup(shape) + starts * per_start * costs.gen_point_evaluation(shape));
}

double estimated_cost(const TaskSpec& task, const StudyConfig& config) {
  const ModelCosts& costs = costs_of(task, config);
  const CostShape shape = shape_of(task);
  const CostOptions options = cost_options(config);
  if (task.experiment == Experiment::ws && task.words >= 2) {
    return costs.multi_word_outside_search(shape) + multi_word_search_cost(task, config);
  }
  const double positions = static_cast<double>(positions_examined(task, config));
  if (task.experiment == Experiment::ws) {
    return costs.ws_outside_search(shape, options, positions) +
           single_word_search_cost(task, config);
  }
  const double N = static_cast<double>(task.N);
  const double p = static_cast<double>(feature_dim(task));
  const double searches =
      static_cast<double>(config.search.trainings.size() * config.search.objectives.size()) *
      gen_search_cost(task, config);
  return costs.gen_outside_search(shape, options, N, p, positions) + searches;
}

double estimated_task_bytes(const TaskSpec& task, const StudyConfig& config) {
  const ModelCosts& costs = costs_of(task, config);
  const CostShape shape = shape_of(task);
  const CostOptions options = cost_options(config);
  if (task.experiment == Experiment::gen) {
    return costs.gen_memory(shape, options, static_cast<double>(task.N),
                            static_cast<double>(feature_dim(task)));
  }
  SearchShape search;
  search.words = static_cast<double>(task.words);
  if (task.words >= 2) return costs.ws_memory(shape, options, search);
  const Index examined = positions_examined(task, config);
  const WsOptions ws = ws_options(config);
  const double factor = is_budget_check_task(task, config) ? config.search.budget_check : 1.0;
  search.positions = static_cast<double>(examined);
  search.starts = factor * (sphere_starts_per_position(ws, task.model, examined) +
                            ws.near_origin_starts + (ws.guided_start ? 2.0 : 0.0));
  return costs.ws_memory(shape, options, search);
}

double estimated_seconds(const TaskSpec& task, const StudyConfig& config) {
  return estimated_cost(task, config) / kEffectiveFlopsPerSecond;
}

double predicted_wall_seconds(std::span<const double> task_seconds, int cores) {
  if (cores < 1) throw std::invalid_argument("predicted_wall_seconds: cores must be >= 1");
  std::vector<double> sorted(task_seconds.begin(), task_seconds.end());
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  // Min-heap of the cores' finishing times.
  std::priority_queue<double, std::vector<double>, std::greater<>> load;
  for (int c = 0; c < cores; ++c) load.push(0.0);
  double wall = 0.0;
  for (const double s : sorted) {
    const double end = load.top() + s;
    load.pop();
    load.push(end);
    wall = std::max(wall, end);
  }
  return wall;
}

}  // namespace wordsens
