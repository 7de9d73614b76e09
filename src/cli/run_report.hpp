#pragma once
// What `wordsens run` prints besides progress: the --dry-run task table and the final outcome.
#include <cstdint>
#include <ostream>
#include <vector>

#include "cli/config.hpp"
#include "parallel/scheduler.hpp"
#include "study/task.hpp"

namespace wordsens::cli {

/// One line per grid point (tasks of this shard and estimated cost), then the total.
void print_task_table(std::ostream& out, const std::vector<TaskSpec>& tasks,
                      const std::vector<std::uint32_t>& selected, const RunOptions& options);

/// One line: how the run ended and what to do next.
void print_outcome(std::ostream& out, const parallel::ScheduleResult& result,
                   const RunOptions& options);

}  // namespace wordsens::cli
