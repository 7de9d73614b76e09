// `wordsens run`: the MPI Monte Carlo driver. Configuration → task table → dynamic
// queue over MPI → records appended to the results file by rank 0 → summaries.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/commands.hpp"
#include "cli/config.hpp"
#include "cli/exit_codes.hpp"
#include "cli/run_report.hpp"
#include "io/results_file.hpp"
#include "models/drf.hpp"
#include "models/model_kind.hpp"
#include "parallel/mpi_session.hpp"
#include "parallel/scheduler.hpp"
#include "parallel/stop.hpp"
#include "study/cost_model.hpp"
#include "study/run_task.hpp"

namespace wordsens::cli {
namespace {

// How long a rank that is not rank 0 waits before leaving on a start-up error. mpirun ends it at
// once when rank 0 leaves first (the usual case); the wait elapses only where rank 0 found no
// error, e.g. an input file visible on some nodes only.
constexpr std::chrono::seconds kQuietRankDelay{3};

// For the tests of start-up errors under mpirun (tests/mpi/bad_inputs.sh): rank 0 leaves this
// many milliseconds late, so that mpirun TERMs it after another rank has left, an order that is
// otherwise a race.
void linger_if_testing() {
  if (const char* ms = std::getenv("WORDSENS_TEST_ROOT_LINGER_MS")) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoll(ms)));
  }
}

// Before MPI is initialised, only the launcher's environment says which rank this is; errors
// found then are printed by rank 0 only (every rank finds the same ones).
bool launcher_rank_is_zero() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (const char* value = std::getenv(name)) return std::string(value) == "0";
  }
  return true;
}

void check_model_sizes(const std::vector<TaskSpec>& tasks, const StudyConfig& study) {
  for (const TaskSpec& t : tasks) {
    if (model_traits(t.model).deep && DeepRandomFeatures::weight_bytes(model_spec(t, study)) >
                                          DeepRandomFeatures::kMaxWeightBytes) {
      throw UsageError("drf at n=" + std::to_string(t.n) + ", d=" + std::to_string(t.d) +
                       ", k=" + std::to_string(t.k) + ", L=" + std::to_string(t.layers) +
                       " needs more than 8 GiB of weights");
    }
  }
}

int exit_code(parallel::Outcome outcome) {
  switch (outcome) {
    case parallel::Outcome::finished:
      return kExitOk;
    case parallel::Outcome::checkpointed:
      return kExitCheckpointed;
    case parallel::Outcome::interrupted:
      return kExitInterrupted;
    case parallel::Outcome::failed:
      return kExitFailure;
  }
  return kExitFailure;
}

// The output must not be one of the run's own input files (the configuration or the data), even
// with --overwrite.
void check_output(const RunOptions& options) {
  std::vector<std::pair<std::string, std::string>> inputs;
  if (!options.config_path.empty()) inputs.emplace_back(options.config_path, "configuration file");
  for (const auto& path : input_file_paths(options.study)) inputs.emplace_back(path, "input data");
  for (const auto& [path, what] : inputs) {
    std::error_code error;
    if (path == options.output || std::filesystem::equivalent(path, options.output, error)) {
      throw UsageError("the output " + options.output + " is the " + what + " of this run");
    }
  }
}

// Rank 0: the output file, created or resumed. Errors are one line; InputError means bad input.
io::ResultsFile open_output(const RunOptions& options, const std::vector<TaskSpec>& tasks,
                            int ranks) {
  const std::string text = config_text(options);
  const std::string fingerprints = input_fingerprints(options.study);
  std::error_code error;
  if (!options.overwrite && std::filesystem::exists(options.output, error)) {
    auto file = io::ResultsFile::open_for_resume(options.output, text, fingerprints);
    if (file.tasks().size() != tasks.size()) {
      throw io::InputError(options.output + ": its task table has " +
                           std::to_string(file.tasks().size()) + " tasks, the configuration " +
                           std::to_string(tasks.size()));
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
  return io::ResultsFile::create(options.output, provenance, tasks, options.overwrite);
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

}  // namespace

int run_command(int argc, char** argv) {
  parallel::die_with_launcher();
  const bool print = launcher_rank_is_zero();
  // Before anything else: a TERM/INT during start-up ends the run at once (exit 4), a USR1
  // checkpoints it as soon as the task loop starts (exit 3).
  parallel::install_startup_handlers(
      kExitInterrupted,
      print ? "wordsens run: interrupted (TERM/INT) while starting, before any task ran; rerun "
              "the same command to resume (exit 4)\n"
            : nullptr);
  RunOptions options;
  std::vector<TaskSpec> tasks;
  std::unique_ptr<DataSource> data;
  try {
    options = parse_run_options(argc, argv);
    if (options.help) {
      if (print) std::cout << run_help_text();
      return kExitOk;
    }
    try {
      tasks = plan_tasks(options.study);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    check_model_sizes(tasks, options.study);
    check_data_source(options.study, tasks);
    data = make_data_source(options.study);
    if (!options.dry_run) check_output(options);
  } catch (const UsageError& e) {
    // Every rank finds the same error; rank 0 prints it. Under mpirun the first rank to exit
    // non-zero makes mpirun TERM the others: the other ranks wait so that rank 0 says why first,
    // and a TERM reaching rank 0 after that adds no "interrupted" line.
    parallel::end_quietly_on_interrupt(kExitUsage);
    if (print) {
      linger_if_testing();
      std::cerr << "wordsens run: error: " << e.what() << "\n";
    } else {
      std::this_thread::sleep_for(kQuietRankDelay);
    }
    return kExitUsage;
  }

  std::vector<std::uint32_t> selected;
  for (const TaskSpec& t : tasks) {
    if (options.shard.contains(t.task_id)) selected.push_back(t.task_id);
  }
  if (options.dry_run) {
    if (print) print_task_table(std::cout, tasks, selected, options);
    return kExitOk;
  }

  parallel::MpiSession session(&argc, &argv);
  const auto started = std::chrono::steady_clock::now();

  // Rank 0 opens the file; the others learn whether they may go on.
  std::optional<io::ResultsFile> file;
  int status = kExitOk;
  if (session.is_root()) {
    try {
      file.emplace(open_output(options, tasks, session.size()));
    } catch (const io::InputError& e) {
      std::cerr << "wordsens run: error: " << e.what() << "\n";
      status = kExitUsage;
    } catch (const UsageError& e) {
      std::cerr << "wordsens run: error: " << e.what() << "\n";
      status = kExitUsage;
    } catch (const std::exception& e) {
      std::cerr << "wordsens run: error: " << e.what() << "\n";
      status = kExitFailure;
    }
  }
  status = session.broadcast(status);
  if (status != kExitOk) {
    // Rank 0 has printed the error; mpirun's TERM, if another rank exits first, adds nothing.
    parallel::end_quietly_on_interrupt(status);
    session.finalize();
    if (session.is_root()) linger_if_testing();
    return status;
  }

  parallel::ScheduleOptions schedule;
  schedule.walltime_seconds = options.walltime;
  schedule.progress_interval = options.progress_interval;
  if (session.is_root()) {
    std::vector<std::uint32_t> todo;
    for (const auto id : selected) {
      if (!file->is_done(id)) todo.push_back(id);
    }
    std::vector<double> cost(tasks.size(), 0.0);
    for (const auto id : todo) cost[id] = estimated_cost(tasks[id], options.study);
    // Most expensive first, ties in task order: the long tasks must not straggle at the end.
    std::stable_sort(todo.begin(), todo.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return cost[a] > cost[b]; });
    schedule.queue = todo;
    for (const auto id : todo) schedule.costs.push_back(cost[id]);
    std::cerr << "wordsens run: " << tasks.size() << " tasks planned";
    if (!options.shard.is_whole()) {
      std::cerr << ", " << selected.size() << " in shard " << options.shard.to_string();
    }
    std::cerr << ", " << (selected.size() - todo.size()) << " already done, " << todo.size()
              << " to run on " << session.size() << " rank" << (session.size() > 1 ? "s" : "")
              << " → " << options.output << "\n";
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
  const auto compute = [&](std::uint32_t id) {
    try {
      if (static_cast<long long>(id) == failing_task) {
        throw std::runtime_error("injected failure (WORDSENS_TEST_FAIL_TASK)");
      }
      return encode(run_task(tasks.at(id), options.study, *data));
    } catch (const std::exception& e) {
      throw std::runtime_error(describe(tasks.at(id)) + " failed: " + e.what());
    }
  };
  const auto sink = [&](std::uint32_t id, const std::vector<std::uint8_t>& bytes) {
    const TaskOutput out = decode_task_output(bytes);
    if (out.task_id != id) throw std::runtime_error("record of the wrong task");
    store(*file, out);
  };
  const parallel::ScheduleResult result = run_schedule(session, compute, sink, schedule);

  int code = exit_code(result.outcome);
  if (session.is_root()) {
    // TERM/INT (also one arriving after the task loop): everything done is already flushed;
    // skip the summaries to exit within seconds. A file whose write failed has reported that
    // already: no summaries and no second message.
    const bool late_interrupt = result.outcome != parallel::Outcome::interrupted &&
                                parallel::stop_requested() == parallel::StopRequest::interrupt;
    const bool interrupted = result.outcome == parallel::Outcome::interrupted || late_interrupt;
    bool closed = true;
    try {
      if (!interrupted && !file->broken()) file->write_summaries();
      file->close();
    } catch (const std::exception& e) {
      closed = false;
      if (code != kExitFailure) {
        std::cerr << "wordsens run: error: " << e.what() << "\n";
        code = kExitFailure;
      }
    }
    if (closed && late_interrupt && code == kExitOk) {
      code = kExitInterrupted;
      std::cerr << "wordsens run: interrupted (TERM/INT) before the summaries were written; "
                   "rerun the same command to write them (exit 4)\n";
    } else if (closed || result.outcome == parallel::Outcome::failed) {
      // A run whose file could not be closed is not "finished": the error above says why.
      print_outcome(std::cerr, result, options);
    }
  }
  // Every rank leaves together, after rank 0 has closed the file: a rank exiting early with a
  // non-zero code would make mpirun kill rank 0 mid-write.
  code = session.broadcast(code);
  session.finalize();
  if (result.abandoned_compute) {
    // A task is still running on its thread (TERM): end the process without unwinding under it.
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}

}  // namespace wordsens::cli
