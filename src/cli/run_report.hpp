#pragma once
// What `wordsens run --dry-run` prints: the task table and the estimated cost.
#include <cstdint>
#include <ostream>
#include <vector>

#include "cli/config.hpp"
#include "study/task.hpp"

namespace wordsens::cli {

/// One line per grid point (tasks of this shard and estimated cost), then the total.
void print_task_table(std::ostream& out, const std::vector<TaskSpec>& tasks,
                      const std::vector<std::uint32_t>& selected, const RunOptions& options);

}  // namespace wordsens::cli
