#pragma once
// Memory before start: `wordsens run` compares the memory its plan needs per rank (the largest
// task's, study/memory_plan.hpp) with what a rank has (memory-per-rank, or this node's,
// parallel/node_memory.hpp), and refuses a plan that cannot fit before MPI starts or any file is
// written; --dry-run prints both.
#include <ostream>
#include <string>

#include "core/errors.hpp"
#include "driver/run_options.hpp"
#include "study/memory_plan.hpp"

namespace wordsens::cli {

/// A plan too large for a rank's memory (exit 2). Nodes differ, so the first rank of each node
/// that finds it says so, not only rank 0.
class MemoryRefusal : public InputError {
 public:
  using InputError::InputError;
};

/// The memory a rank may use, and where the number comes from.
struct RankMemory {
  double bytes = 0;  // 0: unknown (no source to read): nothing is refused
  std::string how;
};

/// memory-per-rank when set, else this node's available memory shared by its ranks.
[[nodiscard]] RankMemory rank_memory(const RunOptions& options);

/// What a refusal advises: a study's (a smaller grid, fewer ranks, memory-per-rank), or a
/// single point's (smaller sizes: it has no grid and runs as one process).
enum class MemoryAdvice { study, one_point };

/// Throws MemoryRefusal (one line: what the plan needs, its largest task, what a rank has and
/// from where, and what to change) when the plan does not fit.
void require_memory(const MemoryPlan& plan, const RankMemory& available,
                    MemoryAdvice advice = MemoryAdvice::study);

/// --dry-run's lines: memory per rank and in total on several rank counts, what a rank has here.
void print_memory(std::ostream& out, const MemoryPlan& plan, const RankMemory& available);

}  // namespace wordsens::cli
