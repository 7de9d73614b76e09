#include "grid/cost_model.hpp"

#include <algorithm>

namespace wordsens {
namespace {

// Flops of one objective + gradient evaluation at one position (SPEC §3 complexities).
double evaluation_cost(const TaskSpec& t) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d),
               k = static_cast<double>(t.k), L = static_cast<double>(t.layers);
  if (t.model == "rf") return 4.0 * k * d;
  if (t.model == "drf") return 4.0 * (k * d + (L - 1.0) * k * k);
  return 4.0 * (n * d + d * d);  // raf, raf_relu
}

// Flops of φ(X) for one sample, and of generating the weights once.
double feature_cost(const TaskSpec& t) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d),
               k = static_cast<double>(t.k), L = static_cast<double>(t.layers);
  if (t.model == "rf") return 2.0 * k * n * d;
  if (t.model == "drf") return 2.0 * (k * n * d + (L - 1.0) * k * k);
  return 2.0 * (n * n * d + n * d * d);
}

double weight_cost(const TaskSpec& t) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d),
               k = static_cast<double>(t.k), L = static_cast<double>(t.layers);
  if (t.model == "rf") return kGenerationCost * k * n * d;
  if (t.model == "drf") return kGenerationCost * (k * n * d + (L - 1.0) * k * k);
  return kGenerationCost * d * d;
}

// Per-position set-up of the fast evaluator (attention: leave-one-out row sums).
double position_setup_cost(const TaskSpec& t) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d);
  if (t.model == "rf" || t.model == "drf") return 2.0 * static_cast<double>(t.k) * d;
  return 2.0 * (n * n + n * d);
}

}  // namespace

Index positions_examined(const TaskSpec& task, const StudyConfig& config) {
  const std::string& p = config.positions;
  if (p == "first") return 1;
  if (p.rfind("random:", 0) == 0) {
    try {
      return std::min<Index>(task.n, std::stoll(p.substr(7)));
    } catch (...) {
      return task.n;
    }
  }
  return task.n;
}

double estimated_cost(const TaskSpec& task, const StudyConfig& config) {
  const double positions = static_cast<double>(positions_examined(task, config));
  const double starts =
      config.sphere_starts + config.origin_starts + (config.guided_start ? 1.0 : 0.0);
  const double search =
      positions * (position_setup_cost(task) + starts * config.max_evals * evaluation_cost(task));
  if (task.experiment == Experiment::ws) {
    return weight_cost(task) + feature_cost(task) + search;
  }
  const double N = static_cast<double>(task.N);
  const double p = static_cast<double>(feature_dim(task));
  const double searches = static_cast<double>(config.trainings.size() * config.objectives.size());
  return weight_cost(task) + (N + 1.0) * feature_cost(task) + N * N * p + N * N * N / 3.0 +
         searches * search;
}

}  // namespace wordsens
