// The scheduler and rank 0's single writer at the rank counts of a cluster, simulated on one
// machine (docs/PERFORMANCE.md, "Scale"): for each configuration and rank count, a timed run
// (each task sleeps its recorded or modelled time, compressed so that the run lasts a few
// seconds) gives the hand-out latency and the workers' idle fraction; a throughput run (the same
// points with thousands of tasks that compute in no time) gives the most tasks and records per
// second rank 0 stores. Every run is checked: each task computed once, each record in the file.
//
//   build/ci/tests/bench/scale_sim [--ranks=256,1024] [--wall=SECONDS]
//       [--throughput-tasks=N] [--dir=DIR] [CONFIG.ini[=TIMINGS.csv] ...]
//
// Without configurations: the paper's (jobs/configs/paper_*.ini and regime_map.ini), with the
// recorded timings of tests/fixtures/task_timings where there are some, else the cost model's.
// Prints one line per run and a Markdown table; exits 1 when a run lost or repeated a task.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "scale/scale_setup.hpp"

namespace {

using wordsens::scale::Figures;
using wordsens::scale::Simulation;

struct Arguments {
  std::vector<int> ranks{256, 1024};
  double wall = 8;  // seconds a timed run should last
  std::size_t throughput_tasks = 6000;
  std::string dir = std::filesystem::temp_directory_path().string();
  std::vector<std::pair<std::string, std::string>> configs;  // path, timings ("" = cost model)
};

const std::string kSource = WORDSENS_SOURCE_DIR;
// The most of rank 0's throughput the compressed tasks of a timed run may take (unless the real
// ones take more): at 30 % a record rarely waits behind another.
constexpr double kMaxLoad = 0.3;

std::vector<std::pair<std::string, std::string>> paper_configs() {
  const std::string configs = kSource + "/jobs/configs/";
  const std::string timings = kSource + "/tests/fixtures/task_timings/";
  return {{configs + "paper_ws.ini", timings + "paper_ws.csv"},
          {configs + "regime_map.ini", timings + "regime_map.csv"},
          {configs + "paper_ws_rf.ini", ""},
          {configs + "paper_ws_rf_bound.ini", ""},
          {configs + "paper_ws_drf.ini", ""},
          {configs + "paper_gen.ini", ""},
          {configs + "paper_glove_brown.ini", ""}};
}

Arguments parse(int argc, char** argv) {
  Arguments a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const std::string& key) -> std::optional<std::string> {
      if (arg.rfind(key + "=", 0) == 0) return arg.substr(key.size() + 1);
      return std::nullopt;
    };
    if (auto v = value("--ranks")) {
      a.ranks.clear();
      std::stringstream in(*v);
      std::string r;
      while (std::getline(in, r, ',')) a.ranks.push_back(std::stoi(r));
    } else if (auto w = value("--wall")) {
      a.wall = std::stod(*w);
    } else if (auto t = value("--throughput-tasks")) {
      a.throughput_tasks = std::stoul(*t);
    } else if (auto d = value("--dir")) {
      a.dir = *d;
    } else if (arg.rfind("--", 0) == 0) {
      throw std::invalid_argument("unknown option " + arg);
    } else {
      const auto eq = arg.find('=');
      a.configs.emplace_back(arg.substr(0, eq), eq == std::string::npos ? "" : arg.substr(eq + 1));
    }
  }
  if (a.configs.empty()) a.configs = paper_configs();
  return a;
}

// Runs one simulation and checks it; the figures, or the problems on stderr (then `ok` false).
Figures run_checked(const Simulation& simulation, bool& ok) {
  const auto run = wordsens::scale::simulate(simulation);
  std::size_t records = 0;
  const auto problems = wordsens::scale::check_run(simulation, run, records);
  for (const auto& p : problems)
    std::cerr << "scale_sim: " << simulation.options.output << ": " << p << "\n";
  ok = ok && problems.empty();
  std::filesystem::remove(simulation.options.output);
  return wordsens::scale::figures_of(run, records);
}

struct Row {
  std::string config;
  int ranks = 0;
  Figures timed, throughput;
  double compression = 1;
  double root_load = 0;  // the real tasks' finishing rate over rank 0's throughput
};

// What one configuration allows: rank 0 limits beyond `root_ranks`, the task count beyond
// `tasks`.
struct Limit {
  std::string config;
  std::size_t tasks = 0;
  double mean_seconds = 0, root_tasks_per_second = 0, root_ranks = 0;
};

// The machine's 1-minute load average: other work on the two cores slows rank 0 down.
std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string first;
  in >> first;
  return first.empty() ? "?" : first;
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  Arguments args;
  try {
    args = parse(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "scale_sim: " << e.what() << "\n";
    return 2;
  }
  bool ok = true;
  std::vector<Row> rows;
  std::vector<Limit> limits;
  for (const auto& [config, timings] : args.configs) {
    const std::string name = std::filesystem::path(config).stem().string();
    const std::string output = args.dir + "/scale_sim_" + name + ".h5";
    const Simulation base = wordsens::scale::timed_simulation(config, timings, 1, output);
    const double total = std::accumulate(base.seconds.begin(), base.seconds.end(), 0.0);
    const double mean = total / static_cast<double>(base.seconds.size());
    const double longest = *std::max_element(base.seconds.begin(), base.seconds.end());
    std::cout << name << ": " << base.tasks.size() << " tasks, mean " << fixed(mean, 2)
              << " s, longest " << fixed(longest, 1) << " s ("
              << (timings.empty()
                      ? "cost model, as `wordsens run --dry-run` prices them"
                      : "recorded: " + std::filesystem::path(timings).filename().string())
              << ")" << std::endl;
    Limit limit{name, base.tasks.size(), mean, 0, 0};
    for (const int ranks : args.ranks) {
      Row row{name, ranks, {}, {}, 1, 0};
      // Rank 0's throughput first: the timed run's compression must not load it beyond reality.
      row.throughput = run_checked(
          wordsens::scale::throughput_simulation(config, ranks, args.throughput_tasks, output), ok);
      const double root = row.throughput.tasks_per_second;
      limit.root_tasks_per_second =
          limit.root_tasks_per_second == 0 ? root : std::min(limit.root_tasks_per_second, root);
      Simulation timed = base;
      timed.ranks = ranks;
      timed.compression =
          wordsens::scale::compression_for(timed.seconds, ranks, args.wall, root, kMaxLoad);
      row.compression = timed.compression;
      row.root_load = wordsens::scale::finishing_rate(timed.seconds, ranks) / root;
      row.timed = run_checked(timed, ok);
      std::cout << "  " << ranks << " ranks: rank 0 at most " << fixed(root, 0) << " tasks/s, "
                << fixed(row.throughput.records_per_second, 0) << " records/s ("
                << row.throughput.tasks << " tasks that take no time in "
                << fixed(row.throughput.wall, 2) << " s); real tasks load it "
                << fixed(100 * row.root_load, 1) << " %; timed run compressed "
                << fixed(row.compression, 1) << "x: " << row.timed.handouts << " hand-outs, "
                << fixed(row.timed.handout_median_ms, 2) << " ms median ("
                << fixed(row.timed.to_root_median_ms, 2) << " ms a record to rank 0, "
                << fixed(row.timed.from_root_median_ms, 2) << " ms rank 0 to the next task), "
                << fixed(row.timed.handout_p99_ms, 2) << " ms p99, workers idle "
                << fixed(100 * row.timed.idle_fraction, 1) << " %; load average " << load_average()
                << std::endl;
      rows.push_back(row);
    }
    // R ranks finish R / mean tasks a second: beyond root × mean ranks they finish faster than
    // rank 0 stores them.
    limit.root_ranks = limit.root_tasks_per_second * mean;
    limits.push_back(limit);
  }

  std::cout << "\n| config | tasks | ranks | hand-out median / p99 (ms) | rank 0 tasks/s | rank 0 "
               "records/s | workers idle | rank 0 limits at | time compressed |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const Row& r : rows) {
    const auto limit = std::find_if(limits.begin(), limits.end(),
                                    [&](const Limit& l) { return l.config == r.config; });
    std::cout << "| " << r.config << " | " << limit->tasks << " | " << r.ranks << " | "
              << fixed(r.timed.handout_median_ms, 2) << " / " << fixed(r.timed.handout_p99_ms, 2)
              << " | " << fixed(r.throughput.tasks_per_second, 0) << " | "
              << fixed(r.throughput.records_per_second, 0) << " | "
              << fixed(100 * r.timed.idle_fraction, 0) << " % | " << fixed(limit->root_ranks, 0)
              << " ranks | " << fixed(r.compression, 1) << "x |\n";
  }
  std::cout << "\nrank 0 limits at (its least tasks/s measured) × (mean task seconds) ranks:\n";
  for (const Limit& l : limits) {
    std::cout << "  " << l.config << ": " << fixed(l.root_tasks_per_second, 0) << " tasks/s × "
              << fixed(l.mean_seconds, 2) << " s = " << fixed(l.root_ranks, 0) << " ranks; its "
              << l.tasks << " tasks keep at most " << l.tasks << " ranks busy → "
              << (l.root_ranks < static_cast<double>(l.tasks) ? "rank 0" : "the task count")
              << " limits first\n";
  }
  return ok ? 0 : 1;
}
