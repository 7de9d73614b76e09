#pragma once
// How long each task of a simulated run computes, in seconds on one core of the development
// machine: the recorded time of a task of the same grid point (tests/fixtures/task_timings) or,
// for a configuration never recorded, the cost model's estimate (what `wordsens run --dry-run`
// prints per point).
#include <string>
#include <vector>

#include "study/study.hpp"
#include "study/task.hpp"

namespace wordsens::scale {

/// The seconds of each task: a recorded task of the same point (experiment, model, n, d, k, L,
/// m, N) and of trial `trial mod the point's recorded trials` (a configuration of more trials than
/// the recording reuses its times in turn). Throws std::runtime_error when the file cannot be
/// read or a task's point was not recorded.
[[nodiscard]] std::vector<double> recorded_seconds(const std::vector<TaskSpec>& tasks,
                                                   const std::string& timings_csv);

/// The cost model's seconds of each task (study/cost_model.hpp: estimated_seconds).
[[nodiscard]] std::vector<double> modelled_seconds(const std::vector<TaskSpec>& tasks,
                                                   const StudyConfig& config);

}  // namespace wordsens::scale
