#pragma once
// What `wordsens run --dry-run` prints: the task table and the estimated cost, for people
// (format = table) or for scripts (tsv, json: cli/plan_export.hpp).
#include <cstdint>
#include <map>
#include <ostream>
#include <vector>

#include "cli/config.hpp"
#include "study/host_calibration.hpp"
#include "study/task.hpp"

namespace wordsens::cli {

/// The tasks of one grid point that this shard runs, and what the cost model says of them.
struct PlannedPoint {
  const TaskSpec* first = nullptr;
  std::size_t count = 0;
  double flops = 0;    // estimated floating-point operations, summed over the tasks
  double seconds = 0;  // estimated seconds on one core, summed over the tasks
};

/// The plan of the tasks `selected`: its grid points in order and each task's estimated seconds
/// (in `selected`'s order, for the wall-time prediction).
struct PlannedTasks {
  std::map<std::uint32_t, PlannedPoint> points;
  std::vector<double> task_seconds;
  double flops = 0;
};

/// `calibration`: this host's rates (nullptr: the development machine's prices).
[[nodiscard]] PlannedTasks plan_points(const std::vector<TaskSpec>& tasks,
                                       const std::vector<std::uint32_t>& selected,
                                       const StudyConfig& study,
                                       const HostCalibration* calibration = nullptr);

/// Core counts for which --dry-run predicts the wall time (longest-first list scheduling).
inline constexpr int kPredictedCores[] = {1, 2, 4, 16, 64};

/// One line per grid point (tasks of this shard and estimated cost), then the total.
void print_task_table(std::ostream& out, const std::vector<TaskSpec>& tasks,
                      const std::vector<std::uint32_t>& selected, const RunOptions& options,
                      const HostCalibration* calibration = nullptr);

}  // namespace wordsens::cli
