// `wordsens run`: the MPI Monte Carlo driver (issue 4). Configuration → task table → dynamic
// queue over MPI → records appended to the results file by rank 0 → summaries.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "cli/config.hpp"
#include "cli/exit_codes.hpp"
#include "cli/run_report.hpp"
#include "grid/cost_model.hpp"
#include "grid/run_task.hpp"
#include "io/results_file.hpp"
#include "models/drf.hpp"
#include "parallel/mpi_session.hpp"
#include "parallel/scheduler.hpp"
#include "parallel/stop.hpp"

namespace wordsens::cli {
namespace {

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
    if (t.model == "drf" && DeepRandomFeatures::weight_bytes(model_spec(t, study)) >
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

// Rank 0: the output file, created or resumed. Errors are one line; InputError means bad input.
io::ResultsFile open_output(const RunOptions& options, const std::vector<TaskSpec>& tasks,
                            int ranks) {
  const std::string text = config_text(options);
  if (!options.overwrite && std::filesystem::exists(options.output)) {
    auto file = io::ResultsFile::open_for_resume(options.output, text);
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
  } catch (const UsageError& e) {
    if (print) std::cerr << "wordsens run: error: " << e.what() << "\n";
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
  parallel::install_stop_handlers();
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
    } catch (const std::exception& e) {
      std::cerr << "wordsens run: error: " << e.what() << "\n";
      status = kExitFailure;
    }
  }
  status = session.broadcast(status);
  if (status != kExitOk) return status;

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

  const auto compute = [&](std::uint32_t id) {
    try {
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
    try {
      // TERM/INT: everything done is already flushed; skip the summaries to exit within seconds.
      if (result.outcome != parallel::Outcome::interrupted) file->write_summaries();
      file->close();
    } catch (const std::exception& e) {
      std::cerr << "wordsens run: error: closing " << options.output << ": " << e.what() << "\n";
      code = kExitFailure;
    }
    print_outcome(std::cerr, result, options);
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
