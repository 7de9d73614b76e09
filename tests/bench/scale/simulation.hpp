#pragma once
// A run of `wordsens run`'s driver (run_study: the scheduler, the encoding, rank 0's sink and
// HDF5 appends, all real) on hundreds of ranks that are threads of this process, each task's
// computation replaced by a sleep of its recorded time divided by a compression factor and
// stand-in records of the real shape.
#include <memory>
#include <string>
#include <vector>

#include "driver/run_options.hpp"
#include "driver/run_study.hpp"
#include "scale/simulated_rank.hpp"
#include "study/task.hpp"

namespace wordsens::scale {

struct Simulation {
  RunOptions options;           // the study and the output file (overwritten)
  std::vector<TaskSpec> tasks;  // plan_tasks(options.study)
  std::vector<double> seconds;  // each task's computing time on one core, by task id
  int ranks = 1;
  /// Real seconds per simulated second: a task sleeps seconds / compression (0: no sleep at
  /// all, rank 0's maximum throughput).
  double compression = 1;
};

struct SimulationRun {
  StudyEnd end = StudyEnd::failed;
  std::vector<std::unique_ptr<RankLog>> logs;  // by rank
  std::string log;                             // rank 0's log lines
};

[[nodiscard]] SimulationRun simulate(const Simulation& simulation);

/// What the figures are measured from. Times are simulated (compressed) seconds.
struct Figures {
  std::size_t tasks = 0;    // tasks computed
  std::size_t records = 0;  // rows in the file's /ws and /gen
  double wall = 0;          // first computation's start to the last record at rank 0
  /// Hand-out latency, in milliseconds: a worker's wait for a task id, from the end of its
  /// previous task or, for its first, from the start (workers only: rank 0 hands its own compute
  /// thread its tasks in-process). `hand-outs` counts them.
  double handout_median_ms = 0, handout_p99_ms = 0;
  std::size_t handouts = 0;
  /// The medians of its two legs after a task: the record's way to rank 0 (the worker's poll,
  /// rank 0's poll), and rank 0's way to the next task id (storing the records before it, the
  /// hand-out, the worker's wake-up).
  double to_root_median_ms = 0, from_root_median_ms = 0;
  /// 1 − (busy seconds of every rank) / (ranks × wall).
  double idle_fraction = 0;
  double tasks_per_second = 0, records_per_second = 0;  // over `wall`
};

/// The figures of a finished run whose file holds `records` rows.
[[nodiscard]] Figures figures_of(const SimulationRun& run, std::size_t records);

/// What is wrong with a finished run: a task not computed exactly once, a task not done in the
/// file, a record missing (one line each; empty: nothing). Returns the file's row count in
/// `records`.
[[nodiscard]] std::vector<std::string> check_run(const Simulation& simulation,
                                                 const SimulationRun& run, std::size_t& records);

}  // namespace wordsens::scale
