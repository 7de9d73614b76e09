#pragma once
// The dynamic task queue over the ranks (parallel/transport.hpp: MPI in a run). Rank 0 hands out
// task ids in queue order, to every rank including itself (its own compute thread: no core
// idles as a pure coordinator), and passes each record to `sink` as it arrives. Works with any
// number of ranks ≥ 1. Only the main thread of each rank uses the transport.
//
// Stopping: a USR1 or the wall time on any rank → no more tasks are handed out, in-flight ones
// finish (outcome checkpointed); TERM/INT on any rank → every rank stops at once, in-flight
// tasks are abandoned (outcome interrupted); a task that throws → no more tasks, in-flight ones
// finish (outcome failed, with the message). Rank 0 decides and tells the others, so every rank
// returns the same outcome.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "parallel/compute_thread.hpp"
#include "parallel/transport.hpp"

namespace wordsens::parallel {

/// Rank 0: receives the encoded output of a finished task (e.g. appends it to the file).
using SinkFn = std::function<void(std::uint32_t task_id, const std::vector<std::uint8_t>& bytes)>;

struct ScheduleOptions {
  /// Rank 0: the task ids to run, in hand-out order (the driver: one_per_group_then_longest_first),
  /// their estimated seconds on one rank (the cost model's: they price the progress line's ETA) and
  /// their groups (grid points: the ETA learns the cost model's error point by point). Missing
  /// costs count as 1 s; without groups each task is a group of its own.
  std::vector<std::uint32_t> queue;
  std::vector<double> costs;
  std::vector<std::uint32_t> groups;
  /// Seconds since the run began at which no more tasks are handed out (≤ 0: none).
  double walltime_seconds = 0;
  /// Seconds already elapsed when the scheduler starts (set-up time counts toward walltime).
  double elapsed_before = 0;
  double progress_interval = 10;  // seconds between progress lines (rank 0)
  bool progress = true;
};

enum class Outcome { finished, checkpointed, interrupted, failed };

struct ScheduleResult {
  Outcome outcome = Outcome::finished;
  std::string failure;                // rank 0: the first failed task's message
  std::size_t completed = 0;          // rank 0: tasks whose records reached the sink
  std::vector<std::size_t> per_rank;  // rank 0: tasks completed by each rank (rank 0 included)
  bool abandoned_compute = false;     // a task was still running when the rank stopped
};

/// The order in which to hand out tasks of these estimated costs: most expensive first, ties in
/// the given order (the long tasks must not straggle at the end). Positions into `costs`.
[[nodiscard]] std::vector<std::size_t> longest_first(std::span<const double> costs);

/// The driver's order: one typical task of every group (grid point) first, longest first, then
/// the others longest first. The cost model errs point by point (2-3x on some points, not on
/// others), so the progress line's ETA can only price a point right once one of its tasks has
/// run: this way every point has run one early, while the makespan stays that of longest first
/// (the last tasks are still the shortest). A group's typical task is its cheapest (ties: the
/// earliest): its tasks cost the same but for the budget check's (trial 0 reruns the search with
/// more starts and budget), whose rate is not the others' (quick.ini's cheap points ran it at
/// 0.44-0.97 of their rate relative to its price; timed by it, their last tasks made the ETA 26 %
/// short at 90 % of the study, 14 % with the cheapest first). `groups` has one entry per cost.
[[nodiscard]] std::vector<std::size_t> one_per_group_then_longest_first(
    std::span<const double> costs, std::span<const std::uint32_t> groups);

/// Runs the queue; every rank calls it. `sink` is used on rank 0 only; if it throws, the run
/// stops like a failed task (the message says so).
[[nodiscard]] ScheduleResult run_schedule(const Transport& ranks, const ComputeFn& compute,
                                          const SinkFn& sink, const ScheduleOptions& options);

}  // namespace wordsens::parallel
