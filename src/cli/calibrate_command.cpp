// `wordsens calibrate`: times a short study of every model on this host, one task at a time on
// one core, and writes the measured seconds per predicted second of each experiment and model
// (study/host_calibration.hpp), which --dry-run then prices with. Each model's tasks are those of
// a fixed grid priced nearest kTargetSeconds on the development machine (the cheapest would time
// the fixed costs of a task, not the work that dominates a study: a replay of recorded studies
// put the whole-study prediction 8-29 % off with tasks near a second and up to +279 % with the
// cheapest), taken round-robin over the models until the time budget is spent, so that every
// model is timed at least once however short the budget.
#include <unistd.h>
#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cli/calibration_file.hpp"
#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/config.hpp"
#include "cli/exit_codes.hpp"
#include "core/errors.hpp"
#include "core/printable.hpp"
#include "study/cost_model.hpp"
#include "study/run_task.hpp"
#include "wordsens/version.hpp"

namespace wordsens::cli {
namespace po = boost::program_options;

namespace {

// The grid: every model's ws and the trained heads of rf and raf at sizes from trivial to a few
// seconds, so that each has tasks near kTargetSeconds.
const std::vector<std::string> kCalibrationKeys = {"run",
                                                   "--experiments=ws,gen",
                                                   "--models=rf,drf,raf,raf_relu,raf_v,mhraf,block",
                                                   "--gen-models=rf,raf",
                                                   "--n=16,32,64,128",
                                                   "--d=32",
                                                   "--gen-n=16,32,64",
                                                   "--gen-d=32",
                                                   "--N=40",
                                                   "--trials=3",
                                                   "--max-evals=60",
                                                   "--seed=20261205",
                                                   "--output=calibration.h5"};

// The development machine's price of the tasks timed first, in seconds.
constexpr double kTargetSeconds = 0.3;

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      const auto text =
          colon == std::string::npos ? colon : line.find_first_not_of(" \t", colon + 1);
      if (text != std::string::npos) return line.substr(text);
    }
  }
  return "unknown cpu";
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("unknown");
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d", std::gmtime(&now));
  return buffer;
}

}  // namespace

int calibrate_command(int argc, char** argv) {
  std::string output = default_calibration_path();
  double budget = 60;
  bool help = false;
  po::options_description options("wordsens calibrate [options]");
  options.add_options()("help,h", po::bool_switch(&help), "print this help")(
      "output,o", po::value(&output)->value_name("FILE"),
      "where to write the calibration (default: $WORDSENS_CALIBRATION, else "
      "$XDG_CONFIG_HOME/wordsens/calibration.tsv, else ~/.config/wordsens/calibration.tsv: "
      "where --dry-run looks for it)")(
      "budget", po::value(&budget)->value_name("SECONDS"),
      "seconds to spend timing tasks (default 60); every model is timed at least once");
  try {
    po::variables_map vm;
    store_command_line(argc, argv, options, po::positional_options_description(), "calibrate", vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    return report_usage_error("calibrate", e);
  }
  if (help) {
    std::cout << "Times a short study of every model on this host (one core) and writes the "
                 "cost model's rates\nhere, which `wordsens run --dry-run` then uses.\n\n"
              << options;
    return kExitOk;
  }
  if (!(budget > 0)) throw InputError("budget = " + std::to_string(budget) + ": expected > 0");
  if (output.empty()) throw InputError("no output: set --output (no HOME to write under)");

  std::vector<std::string> words = kCalibrationKeys;
  std::vector<char*> args;
  for (std::string& w : words) args.push_back(w.data());
  const RunOptions run = parse_run_options(static_cast<int>(args.size()), args.data());
  const std::vector<TaskSpec> tasks = plan_tasks(run.study);
  const auto data = make_data_source(run.study, tasks);

  // Nearest kTargetSeconds first within each experiment and model, then round-robin over them.
  std::map<std::string, std::vector<const TaskSpec*>> by_model;
  for (const TaskSpec& t : tasks) {
    by_model[to_string(t.experiment) + " " + to_string(t.model)].push_back(&t);
  }
  for (auto& [key, list] : by_model) {
    const auto distance = [&](const TaskSpec* t) {
      return std::abs(std::log(estimated_seconds(*t, run.study) / kTargetSeconds));
    };
    std::stable_sort(list.begin(), list.end(), [&](const TaskSpec* a, const TaskSpec* b) {
      return distance(a) < distance(b);
    });
  }
  std::vector<TimedTask> timed;
  const auto start = std::chrono::steady_clock::now();
  const auto spent = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::cerr << "calibrate: timing " << by_model.size() << " experiment-model pairs, budget "
            << budget << " s\n";
  for (std::size_t round = 0;; ++round) {
    bool any = false;
    for (const auto& [key, list] : by_model) {
      if (round >= list.size() || (round > 0 && spent() >= budget)) continue;
      any = true;
      const TaskSpec& task = *list[round];
      const auto began = std::chrono::steady_clock::now();
      (void)run_task(task, run.study, *data);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      timed.push_back(
          {task.experiment, to_string(task.model), estimated_seconds(task, run.study), seconds});
    }
    if (!any) break;
  }
  const HostCalibration calibration(
      timed, "wordsens cost calibration " + std::string(version::software) + ", " + today_utc() +
                 ", host " + host_name() + ", cpu " + cpu_model() + ", " +
                 std::to_string(timed.size()) + " tasks in " + std::to_string(spent()) + " s");
  write_calibration(calibration, output);
  for (const auto& [key, r] : calibration.rates()) {
    std::cout << key << ": " << r.tasks << " tasks, rate " << r.rate()
              << " (measured per predicted second)\n";
  }
  std::cout << "overall rate " << calibration.overall_rate() << "; wrote " << printable(output)
            << "\n";
  return kExitOk;
}

}  // namespace wordsens::cli
