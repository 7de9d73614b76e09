#pragma once
// How much memory a rank of a study needs: the process itself, the task table every rank holds,
// and the largest task it may be handed (each model's catalogue price, study/cost_model.hpp). A
// rank runs one task at a time, and the memory a task frees stays with the process for the next
// one (core/memory_reuse.hpp), so the largest task sets the peak.
#include <cstdint>
#include <vector>

#include "study/study.hpp"
#include "study/task.hpp"

namespace wordsens {

/// The process before its first task: the binary, its libraries, Open MPI's buffers, HDF5's on
/// rank 0 (measured: a small study's `wordsens run`, alone and as 2 ranks under mpirun, peaks at
/// 28 MiB of resident memory), with room to spare.
inline constexpr double kProcessBytes = 64.0 * 1024 * 1024;
/// What each task of the study costs every rank: the task table (about 100 bytes a task), and on
/// rank 0 the file's /tasks rows and done flags.
inline constexpr double kBytesPerPlannedTask = 200.0;

struct MemoryPlan {
  double per_rank = 0;      // bytes: the process, the task table and the largest task
  double largest_task = 0;  // the largest task's own bytes
  const TaskSpec* largest = nullptr;
};

/// The memory a rank needs to run the tasks `selected` (ids into `tasks`) of the study.
[[nodiscard]] MemoryPlan plan_memory(const std::vector<TaskSpec>& tasks,
                                     const std::vector<std::uint32_t>& selected,
                                     const StudyConfig& config);

}  // namespace wordsens
