#include "scale/stand_in_output.hpp"

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
  r.S_upper = value_of(task, 1);
  r.cert_rel_err = 1e-12;
  r.phi_norm = value_of(task, 2);
  r.evaluations = 1000 + task.task_id;
  r.starts = 4;
  r.stationarity = 1e-9;
  if (is_budget_check_task(task, config)) r.S_budget_check = value_of(task, 3);
  // The estimator examines these positions and stores each one's best S.
  const Index examined = positions_examined(task, config);
  for (Index i = 0; i < examined; ++i) {
    r.examined.push_back(i);
    r.position_S.push_back(value_of(task, 10 + static_cast<int>(i)));
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
