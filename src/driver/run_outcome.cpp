#include "driver/run_outcome.hpp"

#include "core/printable.hpp"

namespace wordsens {

void print_outcome(std::ostream& out, const parallel::ScheduleResult& result,
                   const RunOptions& options) {
  if (!result.per_rank.empty()) {
    // Rank 0 computes too: its count shows that no core idled as a pure coordinator.
    out << "wordsens run: tasks per rank:";
    for (const auto n : result.per_rank) out << " " << n;
    out << "\n";
  }
  switch (result.outcome) {
    case parallel::Outcome::finished:
      out << "wordsens run: finished, " << printable(options.output) << " complete\n";
      break;
    case parallel::Outcome::checkpointed:
      out << "wordsens run: checkpointed after " << result.completed
          << " tasks (USR1 or walltime); rerun the same command to resume (exit 3)\n";
      break;
    case parallel::Outcome::interrupted:
      out << "wordsens run: interrupted (TERM/INT) after " << result.completed
          << " tasks; rerun the same command to resume (exit 4)\n";
      break;
    case parallel::Outcome::failed:
      out << "wordsens run: error: " << printable(result.failure) << "\n";
      break;
  }
}

}  // namespace wordsens
