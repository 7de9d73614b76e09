#pragma once
// A cost model of a task, in floating-point operations (a Philox normal counts as
// generation_cost() flops), turned into seconds by one effective rate calibrated against measured
// task times on the 2-core development machine (docs/PERFORMANCE.md; within ~2x of the measured
// times of raf, raf_relu, rf and drf ws tasks). The prices of a model's evaluations, set-ups and
// weights are the model's own (models/shared/model_costs.hpp); this file counts how many of each
// a task runs, with no branch on a model. It orders the work queue (most expensive first, so the
// long tasks do not straggle at the end) and gives the --dry-run prediction of the wall time.
#include <span>

#include "models/shared/model_costs.hpp"
#include "study/study.hpp"
#include "study/task.hpp"

namespace wordsens {

/// Number of word positions a task's estimator examines.
[[nodiscard]] Index positions_examined(const TaskSpec& task, const StudyConfig& config);

/// Expected objective evaluations of one ascent start: the ascent usually stops on its patience
/// rule well before max-evals; the typical count is the model's (ModelCosts), capped by max-evals.
[[nodiscard]] double expected_evaluations_per_start(const TaskSpec& task,
                                                    const StudyConfig& config);

/// The same within a budget of `budget` evaluations (a race's cut).
[[nodiscard]] double expected_evaluations_within(const TaskSpec& task, const StudyConfig& config,
                                                 double budget);

/// Estimated flops of one task.
[[nodiscard]] double estimated_cost(const TaskSpec& task, const StudyConfig& config);

/// Estimated peak bytes of one task's own arrays (the model's ModelCosts::ws_memory or
/// gen_memory), beyond what the process holds before it (study/memory_plan.hpp adds that).
[[nodiscard]] double estimated_task_bytes(const TaskSpec& task, const StudyConfig& config);

/// Estimated seconds of one task on one core.
[[nodiscard]] double estimated_seconds(const TaskSpec& task, const StudyConfig& config);

/// Wall time of tasks of the given durations on `cores` ranks that each take the most expensive
/// remaining task when free: greedy longest-first list scheduling. The driver first hands out one
/// task of every grid point (parallel/scheduler.hpp); the last tasks are the shortest either way,
/// so the makespan is about the same.
[[nodiscard]] double predicted_wall_seconds(std::span<const double> task_seconds, int cores);

}  // namespace wordsens
