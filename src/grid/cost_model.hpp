#pragma once
// A rough cost model of a task, in floating-point operations (a Philox normal counts as
// kGenerationCost flops). It orders the work queue (most expensive first, so the long tasks do
// not straggle at the end) and prints the --dry-run estimate. Its absolute scale is a guess;
// only ratios matter for scheduling.
#include "grid/study.hpp"
#include "grid/task.hpp"

namespace wordsens {

inline constexpr double kGenerationCost = 20.0;

/// Number of word positions a task's estimator examines.
[[nodiscard]] Index positions_examined(const TaskSpec& task, const StudyConfig& config);

/// Estimated flops of one task (an upper bound on the ascent: every start runs max-evals).
[[nodiscard]] double estimated_cost(const TaskSpec& task, const StudyConfig& config);

}  // namespace wordsens
