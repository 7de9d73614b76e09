#include "scale/stand_in_output.hpp"

#include <limits>
#include <stdexcept>

#include "study/cost_model.hpp"

namespace wordsens::scale {
namespace {

// A value that varies from task to task and field to field, so that a record swapped between
// tasks would show in a comparison of files.
double value_of(const TaskSpec& task, int field) {
  return 1.0 + static_cast<double>(task.task_id) * 1e-3 + static_cast<double>(field) * 1e-6;
}

WsRecord ws_record(const TaskSpec& task, const StudyConfig& config) {
  WsRecord r;
  r.task_id = task.task_id;
  r.S = value_of(task, 0);
  // A record every reader accepts (study/record_invariants.cpp): a bound over every position
  // where the configuration computes bounds, none (NaN, scope 0) where it does not.
  if (config.search.upper_bound) {
    r.S_upper = value_of(task, 1);
    r.S_upper_scope = 1;
  } else {
    r.S_upper = std::numeric_limits<double>::quiet_NaN();
  }
  r.cert_rel_err = 1e-12;
  r.phi_norm = value_of(task, 2);
  r.evaluations = 1000 + task.task_id;
  r.starts = 4;
  r.stationarity = 1e-9;
  if (is_budget_check_task(task, config)) r.S_budget_check = value_of(task, 3);
  // The estimator examines these positions and stores each one's best S: the first is the
  // winner, the others a little below it.
  const Index examined = positions_examined(task, config);
  for (Index i = 0; i < examined; ++i) {
    r.examined.push_back(i);
    r.position_S.push_back(r.S - static_cast<double>(i) * 1e-7);
  }
  r.argmax_position = 0;
  r.argmax_set = {r.argmax_position};
  return r;
}

}  // namespace

TaskOutput stand_in_output(const TaskSpec& task, const StudyConfig& config) {
  if (config.save_witness) throw std::invalid_argument("stand-in records: no --save-witness");
  if (task.experiment == Experiment::ws && task.words >= 2) {
    throw std::invalid_argument("stand-in records: no tasks of several changed words");
  }
  TaskOutput out;
  out.task_id = task.task_id;
  out.experiment = task.experiment;
  if (task.experiment == Experiment::ws) {
    out.ws = ws_record(task, config);
    return out;
  }
  // gen: one row per (training mode, Δ objective), as evaluate_generalization returns them.
  int field = 0;
  for (const Training training : config.search.trainings) {
    for (const HeadObjective objective : config.search.objectives) {
      GenRecord g;
      g.task_id = task.task_id;
      g.training = static_cast<std::uint8_t>(training);
      g.objective = static_cast<std::uint8_t>(objective);
      g.t0 = value_of(task, field++);
      g.t1 = value_of(task, field++);
      g.D0 = value_of(task, field++);
      g.D1 = value_of(task, field++);
      g.E = value_of(task, field++);
      g.cond_K = 10.0;
      g.cert_rel_err = 1e-12;
      g.evaluations = 100;
      out.gen.push_back(g);
    }
  }
  return out;
}

}  // namespace wordsens::scale
