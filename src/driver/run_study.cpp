#include "driver/run_study.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/printable.hpp"
#include "driver/run_outcome.hpp"
#include "io/results_file.hpp"
#include "parallel/scheduler.hpp"
#include "parallel/stop.hpp"
#include "study/cost_model.hpp"
#include "study/run_task.hpp"
#include "study/task_output.hpp"

namespace wordsens {
namespace {

// Rank 0: the output file, created or resumed. InputError means bad input.
io::ResultsFile open_output(const RunOptions& options, const StudyInputs& inputs, int ranks) {
  const std::string text = config_text(options);
  const std::string fingerprints = inputs.input_fingerprints ? inputs.input_fingerprints() : "";
  std::error_code error;
  if (!options.overwrite && std::filesystem::exists(options.output, error)) {
    auto file = io::ResultsFile::open_for_resume(options.output, text, fingerprints);
    if (file.tasks().size() != inputs.tasks.size()) {
      throw InputError(options.output + ": its task table has " +
                       std::to_string(file.tasks().size()) + " tasks, the configuration " +
                       std::to_string(inputs.tasks.size()));
    }
    return file;
  }
  io::RunProvenance provenance;
  provenance.command_line = options.command_line;
  provenance.mpi_ranks = ranks;
  provenance.master_seed = options.study.seed;
  provenance.config_text = text;
  provenance.save_witness = options.study.save_witness;
  provenance.input_fingerprints = fingerprints;
  return io::ResultsFile::create(options.output, provenance, inputs.tasks, options.overwrite);
}

void store(io::ResultsFile& file, const TaskOutput& out) {
  if (!out.arrays.empty()) {
    std::vector<io::NamedArray> arrays;
    for (const TaskArray& a : out.arrays)
      arrays.push_back({out.task_id, a.name, a.position, a.values});
    file.append_arrays(arrays);
  }
  if (out.experiment == Experiment::ws) {
    file.append(out.ws);
  } else {
    file.append(out.gen);
  }
}

// Rank 0: the shard's tasks not yet done, a typical one of each grid point first, then the rest
// most expensive first (ties in task order: the long tasks must not straggle at the end;
// parallel::one_per_group_then_longest_first says why), with their estimated seconds and grid
// points (the ETA's groups).
void queue_tasks(const RunOptions& options, const std::vector<TaskSpec>& tasks,
                 const io::ResultsFile& file, parallel::ScheduleOptions& schedule) {
  std::vector<std::uint32_t> todo, points;
  std::vector<double> seconds;
  for (const TaskSpec& t : tasks) {
    if (options.shard.contains(t.task_id) && !file.is_done(t.task_id)) {
      todo.push_back(t.task_id);
      points.push_back(t.point_id);
      seconds.push_back(estimated_seconds(t, options.study));
    }
  }
  for (const std::size_t i : parallel::one_per_group_then_longest_first(seconds, points)) {
    schedule.queue.push_back(todo[i]);
    schedule.costs.push_back(seconds[i]);
    schedule.groups.push_back(points[i]);
  }
}

void log_plan(std::ostream& log, const RunOptions& options, const std::vector<TaskSpec>& tasks,
              std::size_t todo, int ranks) {
  std::size_t selected = 0;
  for (const TaskSpec& t : tasks) selected += options.shard.contains(t.task_id) ? 1 : 0;
  log << "wordsens run: " << tasks.size() << " tasks planned";
  if (!options.shard.is_whole()) {
    log << ", " << selected << " in shard " << options.shard.to_string();
  }
  log << ", " << (selected - todo) << " already done, " << todo << " to run on " << ranks << " rank"
      << (ranks > 1 ? "s" : "") << " → " << printable(options.output) << "\n";
}

StudyEnd end_of(parallel::Outcome outcome) {
  switch (outcome) {
    case parallel::Outcome::finished:
      return StudyEnd::finished;
    case parallel::Outcome::checkpointed:
      return StudyEnd::checkpointed;
    case parallel::Outcome::interrupted:
      return StudyEnd::interrupted;
    case parallel::Outcome::failed:
      return StudyEnd::failed;
  }
  return StudyEnd::failed;
}

// Rank 0, after the task loop: summaries (unless interrupted), then close. TERM/INT (also one
// arriving after the loop): everything done is already flushed; the summaries are skipped to
// exit within seconds. A file whose write failed has reported that already: no summaries and no
// second message.
StudyEnd finish_file(io::ResultsFile& file, const parallel::ScheduleResult& result,
                     const RunOptions& options, std::ostream& log) {
  StudyEnd end = end_of(result.outcome);
  const bool late_interrupt = result.outcome != parallel::Outcome::interrupted &&
                              parallel::stop_requested() == parallel::StopRequest::interrupt;
  const bool interrupted = result.outcome == parallel::Outcome::interrupted || late_interrupt;
  bool closed = true;
  try {
    if (!interrupted && !file.broken()) file.write_summaries();
    file.close();
  } catch (const std::exception& e) {
    closed = false;
    if (end != StudyEnd::failed) {
      log << "wordsens run: error: " << printable(e.what()) << "\n";
      end = StudyEnd::failed;
    }
  }
  if (closed && late_interrupt && end == StudyEnd::finished) {
    log << "wordsens run: interrupted (TERM/INT) before the summaries were written; rerun the "
           "same command to write them (exit 4)\n";
    return StudyEnd::interrupted;
  }
  // A run whose file could not be closed is not "finished": the error above says why.
  if (closed || result.outcome == parallel::Outcome::failed) print_outcome(log, result, options);
  return end;
}

}  // namespace

StudyOutcome run_study(const RunOptions& options, const StudyInputs& inputs,
                       const parallel::Transport& ranks, std::ostream& log) {
  const auto started = std::chrono::steady_clock::now();

  // Rank 0 opens the file; the others learn whether they may go on.
  std::optional<io::ResultsFile> file;
  StudyEnd start = StudyEnd::finished;
  if (ranks.is_root()) {
    try {
      file.emplace(open_output(options, inputs, ranks.size()));
    } catch (const InputError& e) {
      log << "wordsens run: error: " << printable(e.what()) << "\n";
      start = StudyEnd::bad_input;
    } catch (const std::exception& e) {
      log << "wordsens run: error: " << printable(e.what()) << "\n";
      start = StudyEnd::failed;
    }
  }
  start = static_cast<StudyEnd>(ranks.broadcast(static_cast<int>(start)));
  if (start != StudyEnd::finished) return {start, /*started=*/false, /*abandoned_compute=*/false};

  parallel::ScheduleOptions schedule;
  schedule.walltime_seconds = options.walltime;
  schedule.progress_interval = options.progress_interval;
  if (ranks.is_root()) {
    queue_tasks(options, inputs.tasks, *file, schedule);
    log_plan(log, options, inputs.tasks, schedule.queue.size(), ranks.size());
  }
  schedule.elapsed_before =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // The task loop flushes before it stops: from here on TERM/INT only set the flag.
  parallel::install_stop_handlers();

  // Fault injection for the tests of the failure path (tests/mpi/task_failure.sh): the task
  // with this id throws, as a task meeting bad data would. Inputs are checked before the run,
  // so no real input makes a task fail on demand.
  const char* failing = std::getenv("WORDSENS_TEST_FAIL_TASK");
  const long long failing_task = failing != nullptr ? std::atoll(failing) : -1;
  // Captures only what outlives run_study: an abandoned task (TERM) may still be running when
  // it returns.
  const auto compute = [&inputs, &options, failing_task](std::uint32_t id) {
    try {
      if (static_cast<long long>(id) == failing_task) {
        throw std::runtime_error("injected failure (WORDSENS_TEST_FAIL_TASK)");
      }
      const TaskSpec& task = inputs.tasks.at(id);
      return encode(inputs.compute ? inputs.compute(task)
                                   : run_task(task, options.study, inputs.data));
    } catch (const std::exception& e) {
      throw std::runtime_error(describe(inputs.tasks.at(id)) + " failed: " + e.what());
    }
  };
  const auto sink = [&](std::uint32_t id, const std::vector<std::uint8_t>& bytes) {
    const TaskOutput out = decode_task_output(bytes);
    if (out.task_id != id) throw std::runtime_error("record of the wrong task");
    store(*file, out);
  };
  const parallel::ScheduleResult result = run_schedule(ranks, compute, sink, schedule);

  StudyEnd end = end_of(result.outcome);
  if (ranks.is_root()) end = finish_file(*file, result, options, log);
  // Every rank leaves together, after rank 0 has closed the file: a rank exiting early with a
  // non-zero code would make mpirun kill rank 0 mid-write.
  end = static_cast<StudyEnd>(ranks.broadcast(static_cast<int>(end)));
  return {end, /*started=*/true, result.abandoned_compute};
}

}  // namespace wordsens
