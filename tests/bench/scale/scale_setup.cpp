#include "scale/scale_setup.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include "cli/config.hpp"
#include "scale/task_durations.hpp"
#include "study/study.hpp"

namespace wordsens::scale {
namespace {

// `wordsens run CONFIG ARGS…` as the command line parses it, writing to `output`.
RunOptions parse(const std::string& config_path, std::vector<std::string> args,
                 const std::string& output) {
  args.insert(args.begin(), {"run", config_path});
  args.push_back("--output=" + output);
  args.push_back("--overwrite");
  args.push_back("--progress=100000");  // no progress lines: they would only interleave
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return cli::parse_run_options(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

Simulation timed_simulation(const std::string& config_path, const std::string& timings_csv,
                            int ranks, const std::string& output) {
  Simulation s;
  s.options = parse(config_path, {}, output);
  s.tasks = plan_tasks(s.options.study);
  s.seconds = timings_csv.empty() ? modelled_seconds(s.tasks, s.options.study)
                                  : recorded_seconds(s.tasks, timings_csv);
  s.ranks = ranks;
  return s;
}

Simulation throughput_simulation(const std::string& config_path, int ranks, std::size_t min_tasks,
                                 const std::string& output) {
  const Simulation as_given = timed_simulation(config_path, "", 1, output);
  std::set<std::uint32_t> points;
  for (const TaskSpec& t : as_given.tasks) points.insert(t.point_id);
  const std::size_t per_point =
      (min_tasks + points.size() - 1) / std::max<std::size_t>(points.size(), 1);
  const std::size_t trials = std::max<std::size_t>(as_given.options.study.grid.trials, per_point);
  Simulation s;
  s.options = parse(config_path, {"--trials=" + std::to_string(trials), "--max-trials=0"}, output);
  s.tasks = plan_tasks(s.options.study);
  s.seconds.assign(s.tasks.size(), 0.0);
  s.ranks = ranks;
  s.compression = 0;
  return s;
}

double finishing_rate(const std::vector<double>& seconds, int ranks) {
  if (seconds.empty()) return 0;
  const double mean =
      std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(seconds.size());
  const double busy = std::min(static_cast<double>(ranks), static_cast<double>(seconds.size()));
  return mean > 0 ? busy / mean : 0;
}

double compression_for(const std::vector<double>& seconds, int ranks, double target_wall,
                       double root_tasks_per_second, double max_load) {
  if (seconds.empty() || target_wall <= 0) return 1;
  const double longest = *std::max_element(seconds.begin(), seconds.end());
  const double total = std::accumulate(seconds.begin(), seconds.end(), 0.0);
  const double for_wall = std::max(longest, total / ranks) / target_wall;
  const double rate = finishing_rate(seconds, ranks);
  const double for_load = rate > 0 ? max_load * root_tasks_per_second / rate : for_wall;
  return std::max(1.0, std::min(for_wall, for_load));
}

}  // namespace wordsens::scale
