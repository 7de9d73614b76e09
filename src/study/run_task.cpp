#include "study/run_task.hpp"

#include <chrono>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

#include "estimators/multi_word.hpp"
#include "estimators/trained_head.hpp"
#include "estimators/word_sensitivity.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {
namespace {

TaskArray delta_array(const Vector& delta, Index position) {
  TaskArray a;
  a.name = "delta";
  a.position = static_cast<std::int64_t>(position);
  a.values = Matrix(1, delta.size());
  for (Index j = 0; j < delta.size(); ++j) a.values(0, j) = delta(j);
  return a;
}

// The model's weights, when small enough to store (--save-witness), so that anyone can
// recompute a result without this code's random number generator.
void add_weights(const FeatureMap& model, std::vector<TaskArray>& arrays) {
  for (FeatureMap::NamedWeights& w : model.stored_weights(kMaxStoredWeights)) {
    arrays.push_back({std::move(w.name), -1, std::move(w.values)});
  }
}

std::vector<double> to_std(const Vector& v) { return {v.data(), v.data() + v.size()}; }

template <typename T>
std::vector<std::int64_t> to_int64(const std::vector<T>& values) {
  return {values.begin(), values.end()};
}

// The members one and several changed words share: S, its bound and evidence, the search's
// effort (WsResult and MultiWordResult name them alike).
template <typename Result>
void copy_search_summary(const Result& result, std::uint32_t task_id, WsRecord& r) {
  r.task_id = task_id;
  r.S = result.S;
  r.S_upper = result.S_upper ? *result.S_upper : std::numeric_limits<double>::quiet_NaN();
  r.S_upper_scope = static_cast<std::uint8_t>(result.S_upper_scope);
  r.cert_rel_err = result.cert_rel_err;
  r.phi_norm = result.phi_norm;
  r.evaluations = result.evaluations;
  r.starts = result.starts;
  r.starts_at_budget = result.starts_at_budget;
}

// A ws task with m ≥ 2 changed words: S_m over the study's word sets (estimators/multi_word.hpp).
void run_ws_words(const TaskSpec& task, const StudyConfig& config, const DataSource& data,
                  TaskDetail detail, TaskOutput& out) {
  const MultiWordOptions options = multi_word_options(config, task.words);
  const auto model = make_feature_map(model_spec(task, config), {config.seed, task.stream_entity});
  const Matrix X = data.test_sample(task.n, task.d, task.trial);
  const MultiWordResult result =
      estimate_multi_word_sensitivity(*model, X, options, config.seed, task.stream_entity);
  require_certified("S_m", result.S, result.cert_rel_err);

  WsRecord& r = out.ws;
  copy_search_summary(result, task.task_id, r);
  r.argmax_position = -1;
  r.argmax_set = to_int64(result.argmax_set);
  for (const auto& set : result.sets) {
    r.examined_sets.insert(r.examined_sets.end(), set.begin(), set.end());
  }
  r.set_S = result.set_maxima;
  if (config.save_witness || detail == TaskDetail::witness) r.witness = to_std(result.witness);
  if (config.save_witness) {
    // One row of "delta_words" per changed word, in argmax_set's order (position −1: the set is
    // the record's argmax_set).
    TaskArray moves;
    moves.name = "delta_words";
    moves.values = Eigen::Map<const Matrix>(result.witness.data(), task.words, task.d);
    out.arrays.push_back(std::move(moves));
    out.arrays.push_back({"X", -1, X});
    add_weights(*model, out.arrays);
  }
}

void run_ws(const TaskSpec& task, const StudyConfig& config, const DataSource& data,
            TaskDetail detail, TaskOutput& out) {
  if (task.words >= 2) {
    run_ws_words(task, config, data, detail, out);
    return;
  }
  const WsOptions options = ws_options(config);
  // The estimator resolves the same positions from (seed, task id); rf's marginal sampler
  // draws its weights for exactly these.
  const auto model =
      make_feature_map(model_spec(task, config), {config.seed, task.stream_entity},
                       options.positions.resolve(task.n, config.seed, task.stream_entity));
  const Matrix X = data.test_sample(task.n, task.d, task.trial);
  const WsResult result =
      estimate_word_sensitivity(*model, X, options, config.seed, task.stream_entity);
  require_certified("S", result.S, result.cert_rel_err);

  WsRecord& r = out.ws;
  copy_search_summary(result, task.task_id, r);
  r.argmax_position = static_cast<std::int64_t>(result.argmax_position);
  r.stationarity = result.stationarity;
  r.examined = to_int64(result.positions);
  r.position_S = result.position_maxima;
  r.argmax_set = {r.argmax_position};
  if (is_budget_check_task(task, config)) {
    const WsResult check = recheck_with_more_budget(*model, X, options, config.search.budget_check,
                                                    result, config.seed, task.stream_entity);
    require_certified("S of the budget check", check.S, check.cert_rel_err);
    r.S_budget_check = check.S;
  }
  if (config.save_witness || detail == TaskDetail::witness) r.witness = to_std(result.witness);
  if (config.save_witness) {
    out.arrays.push_back(delta_array(result.witness, result.argmax_position));
    out.arrays.push_back({"X", -1, X});
    add_weights(*model, out.arrays);
  }
}

void run_gen(const TaskSpec& task, const StudyConfig& config, const DataSource& data,
             TaskDetail detail, TaskOutput& out) {
  GenProblem problem = data.gen_problem(task.n, task.d, task.N, task.trial);
  const GenOptions options = gen_options(config);
  const auto model = make_gen_feature_map(
      model_spec(task, config), {config.seed, task.stream_entity}, problem, options.positions);
  const auto results =
      evaluate_generalization(*model, std::move(problem), options, config.seed, task.stream_entity);
  for (const GenResult& g : results) {
    GenRecord r;
    r.task_id = task.task_id;
    r.training = static_cast<std::uint8_t>(g.training);
    r.objective = static_cast<std::uint8_t>(g.objective);
    r.t0 = g.t0;
    r.t1 = g.t1;
    r.D0 = g.D0;
    r.D1 = g.D1;
    r.E = g.E;
    r.cond_K = g.cond_K;
    require_certified("D1", g.D1, g.cert_rel_err);
    r.cert_rel_err = g.cert_rel_err;
    r.position = static_cast<std::int64_t>(g.position);
    r.evaluations = g.evaluations;
    if (config.save_witness || detail == TaskDetail::witness) r.witness = to_std(g.delta);
    out.gen.push_back(std::move(r));
  }
  if (config.save_witness) {
    for (const GenResult& g : results) {
      TaskArray a = delta_array(g.delta, g.position);
      a.name = "delta_" + to_string(g.training) + "_" + to_string(g.objective);
      out.arrays.push_back(std::move(a));
    }
    out.arrays.push_back({"X", -1, problem.test});
    add_weights(*model, out.arrays);
  }
}

}  // namespace

TaskOutput run_task(const TaskSpec& task, const StudyConfig& config, const DataSource& data,
                    TaskDetail detail) {
  const auto start = std::chrono::steady_clock::now();
  TaskOutput out;
  out.task_id = task.task_id;
  out.experiment = task.experiment;
  if (task.experiment == Experiment::ws) {
    run_ws(task, config, data, detail, out);
  } else {
    run_gen(task, config, data, detail, out);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.ws.seconds = seconds;
  for (auto& g : out.gen) g.seconds = seconds;
  return out;
}

}  // namespace wordsens
