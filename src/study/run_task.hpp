#pragma once
// One task, start to finish: texts → feature map → estimator → records. A pure function of
// (task, configuration, data source): no MPI, no files, so any rank computes the same bits.
#include <cstdint>

#include "data/data_source.hpp"
#include "study/study.hpp"
#include "study/task_output.hpp"

namespace wordsens {

/// Weights are stored with --save-witness only below this many entries (k·D for rf).
inline constexpr Index kMaxStoredWeights = 10000000;

/// What the records carry besides the results: what the configuration says (save-witness: the
/// witness Δ* and the arrays), or the witness Δ* in any case (`wordsens ws` and `gen` print
/// |Δ*|), without arrays unless save-witness.
enum class TaskDetail : std::uint8_t { configured, witness };

/// Runs a task. Exceptions of the model or estimator propagate (the driver reports the task).
[[nodiscard]] TaskOutput run_task(const TaskSpec& task, const StudyConfig& config,
                                  const DataSource& data,
                                  TaskDetail detail = TaskDetail::configured);

}  // namespace wordsens
