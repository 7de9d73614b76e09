#pragma once
// What a simulated task returns in place of run_task's output: records of the same shape (the
// same rows, the same lengths of every variable-length field, so the same encoded bytes and the
// same HDF5 appends), with values that depend on the task alone (a file's content must not depend
// on the rank count, in the simulation as in a real run). scale_sim_test checks the shape against
// run_task.
#include "study/study.hpp"
#include "study/task.hpp"
#include "study/task_output.hpp"

namespace wordsens::scale {

/// Throws std::invalid_argument for what the simulation does not shape: m ≥ 2 changed words and
/// --save-witness (no paper configuration uses them).
[[nodiscard]] TaskOutput stand_in_output(const TaskSpec& task, const StudyConfig& config);

}  // namespace wordsens::scale
