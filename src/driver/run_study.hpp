#pragma once
// The driver of `wordsens run`, called on every rank: rank 0 creates or resumes the results
// file, the tasks still to do go out over the ranks in the scheduler's order
// (parallel/scheduler.hpp), rank 0 appends each record as it arrives and writes the summaries at
// the end. The command line parses and checks the options, starts MPI and calls it; the tests call
// it with ranks that are threads of one process.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "data/data_source.hpp"
#include "driver/run_options.hpp"
#include "parallel/transport.hpp"
#include "study/task.hpp"
#include "study/task_output.hpp"

namespace wordsens {

struct StudyInputs {
  const std::vector<TaskSpec>& tasks;  // plan_tasks(options.study), every rank
  const DataSource& data;
  /// Rank 0, when it creates or resumes the file: the input files' fingerprints
  /// (io::RunProvenance::input_fingerprints). May throw InputError.
  std::function<std::string()> input_fingerprints;
  /// What computes a task; empty: run_task on `data` (what `wordsens run` does). The scale
  /// simulation (tests/bench/scale) puts a stand-in here that sleeps for the task's measured time
  /// and returns records of the real shape, so that everything after the computation (encoding,
  /// the scheduler, rank 0's sink and the HDF5 appends) runs as in a real run.
  std::function<TaskOutput(const TaskSpec&)> compute = {};
};

/// How a run ended: the same on every rank.
enum class StudyEnd {
  finished,      // every task of the shard is in the file, with the summaries
  checkpointed,  // USR1 or the wall time: rerun to resume
  interrupted,   // TERM/INT: rerun to resume
  failed,        // a task or a write failed (the log says which)
  bad_input,     // the file could not be created or resumed (the log says why); nothing ran
};

struct StudyOutcome {
  StudyEnd end = StudyEnd::finished;
  /// Whether the task loop ran: false when rank 0 could not create or resume the file.
  bool started = true;
  /// A task was still running on this rank's compute thread when the run ended (TERM): the
  /// process must end without unwinding under it.
  bool abandoned_compute = false;
};

/// Runs the study's tasks of `options.shard` not yet in `options.output`. Rank 0 writes what
/// happens to `log` (one line per event; the progress lines go to stderr). When the outcome says
/// abandoned_compute, a task still runs on a thread that uses `options` and `inputs`: the caller
/// keeps them alive and ends the process (std::_Exit) without destroying them.
[[nodiscard]] StudyOutcome run_study(const RunOptions& options, const StudyInputs& inputs,
                                     const parallel::Transport& ranks, std::ostream& log);

}  // namespace wordsens
