#include "cli/run_report.hpp"

#include <algorithm>

#include <cstdio>

#include "parallel/progress.hpp"
#include "study/cost_model.hpp"

namespace wordsens::cli {
namespace {

std::string format_flops(double flops) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", flops / 1e9);
  return buffer;
}

}  // namespace

PlannedTasks plan_points(const std::vector<TaskSpec>& tasks,
                         const std::vector<std::uint32_t>& selected, const StudyConfig& study,
                         const HostCalibration* calibration) {
  PlannedTasks plan;
  plan.task_seconds.reserve(selected.size());
  for (const auto id : selected) {
    const TaskSpec& t = tasks[id];
    auto& p = plan.points[t.point_id];
    if (!p.first) p.first = &t;
    ++p.count;
    const double c = estimated_cost(t, study);
    p.flops += c;
    plan.flops += c;
    const double priced = estimated_seconds(t, study);
    plan.task_seconds.push_back(calibration ? calibration->seconds(t, priced) : priced);
    p.seconds += plan.task_seconds.back();
  }
  return plan;
}

void print_task_table(std::ostream& out, const std::vector<TaskSpec>& tasks,
                      const std::vector<std::uint32_t>& selected, const RunOptions& options,
                      const HostCalibration* calibration) {
  const PlannedTasks plan = plan_points(tasks, selected, options.study, calibration);
  const auto& points = plan.points;
  // The model column is as wide as the longest name it shows (9 for the paper's models, so their
  // tables keep their layout; trained_layer needs 13).
  int model_width = 9;
  for (const auto& entry : points) {
    model_width =
        std::max(model_width, static_cast<int>(to_string(entry.second.first->model).size()));
  }
  char line[256];
  std::snprintf(line, sizeof line, "%6s  %-4s %-*s %7s %6s %10s %3s %3s %5s %7s %6s %12s %10s\n",
                "point", "exp", model_width, "model", "n", "d", "k", "L", "H", "m", "N", "tasks",
                "est. Gflop", "est. time");
  out << line;
  for (const auto& [id, p] : points) {
    const TaskSpec& t = *p.first;
    std::snprintf(
        line, sizeof line, "%6u  %-4s %-*s %7lld %6lld %10lld %3d %3d %5lld %7lld %6zu %12s %10s\n",
        id, to_string(t.experiment).c_str(), model_width, to_string(t.model).c_str(),
        static_cast<long long>(t.n), static_cast<long long>(t.d), static_cast<long long>(t.k),
        t.layers, t.heads, static_cast<long long>(t.words), static_cast<long long>(t.N), p.count,
        format_flops(p.flops).c_str(), parallel::format_duration(p.seconds).c_str());
    out << line;
  }
  out << "total: " << selected.size() << " tasks";
  if (!options.shard.is_whole()) {
    out << " in shard " << options.shard.to_string() << " (of " << tasks.size() << ")";
  }
  out << " in " << points.size() << " grid points, est. " << format_flops(plan.flops) << " Gflop\n";
  if (calibration != nullptr) {
    out << "predicted wall time (cost model calibrated on this host: " << calibration->source()
        << ", " << calibration->header() << "):";
  } else {
    out << "predicted wall time (cost model calibrated on the 2-core development machine; "
           "`wordsens calibrate` prices it for this host):";
  }
  for (const int cores : kPredictedCores) {
    out << " " << cores << (cores == 1 ? " core " : " cores ")
        << parallel::format_duration(predicted_wall_seconds(plan.task_seconds, cores)) << ";";
  }
  out << "\n";
}

}  // namespace wordsens::cli
