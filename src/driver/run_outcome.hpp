#pragma once
// The last lines of a run: tasks per rank, how the run ended and what to do next.
#include <ostream>

#include "driver/run_options.hpp"
#include "parallel/scheduler.hpp"

namespace wordsens {

/// Rank 0: tasks per rank, then one line saying how the run ended and what to do next.
void print_outcome(std::ostream& out, const parallel::ScheduleResult& result,
                   const RunOptions& options);

}  // namespace wordsens
