// `wordsens run`: options → task table → checks of every input before MPI starts → run_study
// (driver/run_study.hpp) on every rank → exit code. What happens at start-up and on errors under
// mpirun (who prints, who waits, which signal ends what) is decided here.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/calibration_file.hpp"
#include "cli/commands.hpp"
#include "cli/config.hpp"
#include "cli/exit_codes.hpp"
#include "cli/memory_check.hpp"
#include "cli/plan_export.hpp"
#include "cli/run_report.hpp"
#include "core/errors.hpp"
#include "core/printable.hpp"
#include "driver/run_study.hpp"
#include "parallel/mpi_session.hpp"
#include "parallel/node_memory.hpp"
#include "parallel/stop.hpp"

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

int exit_code(StudyEnd end) {
  switch (end) {
    case StudyEnd::finished:
      return kExitOk;
    case StudyEnd::checkpointed:
      return kExitCheckpointed;
    case StudyEnd::interrupted:
      return kExitInterrupted;
    case StudyEnd::failed:
      return kExitFailure;
    case StudyEnd::bad_input:
      return kExitUsage;
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
      throw InputError("the output " + options.output + " is the " + what + " of this run");
    }
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
  std::vector<std::uint32_t> selected;
  std::unique_ptr<DataSource> data;
  MemoryPlan memory;
  std::optional<HostCalibration> calibration;
  try {
    options = parse_run_options(argc, argv);
    if (options.help) {
      if (print) std::cout << run_help_text();
      return kExitOk;
    }
    tasks = plan_tasks(options.study);
    check_model_sizes(tasks, options.study);
    for (const TaskSpec& t : tasks) {
      if (options.shard.contains(t.task_id)) selected.push_back(t.task_id);
    }
    memory = plan_memory(tasks, selected, options.study);
    data = make_data_source(options.study, tasks);
    if (options.dry_run) {
      calibration = load_calibration(options.calibration);
    } else {
      check_output(options);
      require_memory(memory, rank_memory(options));
    }
  } catch (const MemoryRefusal& e) {
    // Each node has its own memory: its first rank says why, the others leave quietly.
    parallel::end_quietly_on_interrupt(kExitUsage);
    if (parallel::first_rank_on_this_node()) {
      std::cerr << "wordsens run: error: " << printable(e.what()) << "\n";
    }
    return kExitUsage;
  } catch (const InputError& e) {
    // Every rank finds the same error; rank 0 prints it. Under mpirun the first rank to exit
    // non-zero makes mpirun TERM the others: the other ranks wait so that rank 0 says why first,
    // and a TERM reaching rank 0 after that adds no "interrupted" line.
    parallel::end_quietly_on_interrupt(kExitUsage);
    if (print) {
      linger_if_testing();
      std::cerr << "wordsens run: error: " << printable(e.what()) << "\n";
    } else {
      std::this_thread::sleep_for(kQuietRankDelay);
    }
    return kExitUsage;
  }

  if (options.dry_run) {
    if (print) {
      switch (parse_plan_format(options.plan_format)) {
        case PlanFormat::table:
          print_task_table(std::cout, tasks, selected, options,
                           calibration ? &*calibration : nullptr);
          print_memory(std::cout, memory, rank_memory(options));
          break;
        case PlanFormat::tsv:
          print_plan_tsv(std::cout, tasks, selected, options,
                         calibration ? &*calibration : nullptr);
          break;
        case PlanFormat::json:
          print_plan_json(std::cout, tasks, selected, options, memory, rank_memory(options),
                          calibration ? &*calibration : nullptr);
          break;
      }
    }
    return kExitOk;
  }

  parallel::MpiSession session(&argc, &argv);
  // Rank 0 reads the input files whole for their fingerprints, when it opens the output.
  const StudyInputs inputs{tasks, *data,
                           [&study = options.study] { return input_fingerprints(study); }};
  const StudyOutcome outcome = run_study(options, inputs, session, std::cerr);
  const int code = exit_code(outcome.end);
  if (!outcome.started) {
    // Rank 0 has printed why; mpirun's TERM, if another rank exits first, adds nothing.
    parallel::end_quietly_on_interrupt(code);
    session.finalize();
    if (session.is_root()) linger_if_testing();
    return code;
  }
  session.finalize();
  if (outcome.abandoned_compute) {
    // A task is still running on its thread (TERM): end the process without unwinding under it.
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}

}  // namespace wordsens::cli
