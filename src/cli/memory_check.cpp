#include "cli/memory_check.hpp"

#include "parallel/node_memory.hpp"

namespace wordsens::cli {
namespace {

using parallel::format_bytes;

// Rank counts for which --dry-run gives the memory in total (as its wall times).
constexpr int kTotalRanks[] = {1, 2, 4, 16, 64};

std::string largest_task(const MemoryPlan& plan) {
  return plan.largest == nullptr ? std::string("none")
                                 : describe(*plan.largest) + ", " + format_bytes(plan.largest_task);
}

}  // namespace

RankMemory rank_memory(const RunOptions& options) {
  if (options.memory_per_rank > 0) {
    return {options.memory_per_rank, "memory-per-rank = " + format_bytes(options.memory_per_rank)};
  }
  if (const auto node = parallel::memory_per_rank()) return {node->per_rank, node->how};
  return {0, "this machine's memory is unknown (no /proc/meminfo)"};
}

void require_memory(const MemoryPlan& plan, const RankMemory& available, MemoryAdvice advice) {
  if (available.bytes <= 0 || plan.per_rank <= available.bytes) return;
  const std::string what = advice == MemoryAdvice::study
                               ? "shrink the grid, run fewer ranks per node, or, where a rank has "
                                 "more (a cluster's job), say so with memory-per-rank"
                               : "choose smaller sizes, or run the point as a study with "
                                 "`wordsens run` and memory-per-rank where a rank has more";
  throw MemoryRefusal("the plan needs about " + format_bytes(plan.per_rank) +
                      " per rank (its largest task: " + largest_task(plan) + "), but a rank has " +
                      format_bytes(available.bytes) + " (" + available.how + "); " + what);
}

void print_memory(std::ostream& out, const MemoryPlan& plan, const RankMemory& available) {
  out << "memory: " << format_bytes(plan.per_rank)
      << " per rank (the process, the task table and the largest task: " << largest_task(plan)
      << "); in total";
  for (const int ranks : kTotalRanks) {
    out << " " << format_bytes(plan.per_rank * ranks) << " on " << ranks
        << (ranks == 1 ? " rank" : " ranks") << ";";
  }
  out << "\n";
  if (available.bytes <= 0) {
    out << "memory per rank here: unknown (" << available.how << ")\n";
    return;
  }
  out << "memory per rank here: " << format_bytes(available.bytes) << " (" << available.how << ")"
      << (plan.per_rank <= available.bytes ? "" : "; too little: `wordsens run` refuses this plan")
      << "\n";
}

}  // namespace wordsens::cli
