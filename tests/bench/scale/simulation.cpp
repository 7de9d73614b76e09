#include "scale/simulation.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "data/data_source.hpp"
#include "io/results_file.hpp"
#include "scale/stand_in_output.hpp"

namespace wordsens::scale {
namespace {

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// The value at quantile q (0 … 1) of sorted values, nearest rank.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto i = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

// The task's computation on one simulated rank: sleeps its compressed time, then returns the
// stand-in records. The end is announced first so that the rank's main thread sleeps until then.
TaskOutput compute_on(RankLog& log, const Simulation& simulation, const TaskSpec& task) {
  const auto start = Clock::now();
  const double seconds = simulation.compression > 0
                             ? simulation.seconds.at(task.task_id) / simulation.compression
                             : 0.0;
  const auto end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  log.compute_until.store(end.time_since_epoch().count());
  log.compute_start.push_back(start);
  if (seconds > 0) std::this_thread::sleep_until(end);
  TaskOutput out = stand_in_output(task, simulation.options.study);
  log.task_ids.push_back(task.task_id);
  log.compute_end.push_back(Clock::now());
  return out;
}

}  // namespace

SimulationRun simulate(const Simulation& simulation) {
  SimulationRun run;
  for (int r = 0; r < simulation.ranks; ++r) run.logs.push_back(std::make_unique<RankLog>());
  const SyntheticSource data(simulation.options.study.seed);  // never read: tasks are stand-ins
  testing::InMemoryNetwork network(simulation.ranks);
  std::vector<StudyEnd> ends(static_cast<std::size_t>(simulation.ranks), StudyEnd::failed);
  std::ostringstream root_log;
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(simulation.ranks));
  for (int r = 0; r < simulation.ranks; ++r) {
    threads.emplace_back([&, r] {
      RankLog& log = *run.logs[static_cast<std::size_t>(r)];
      const SimulatedRank transport(network, r, log);
      const StudyInputs inputs{simulation.tasks, data, {}, [&](const TaskSpec& task) {
                                 return compute_on(log, simulation, task);
                               }};
      std::ostringstream quiet;
      ends[static_cast<std::size_t>(r)] =
          run_study(simulation.options, inputs, transport, r == 0 ? root_log : quiet).end;
    });
  }
  for (auto& t : threads) t.join();
  run.end = ends[0];
  for (const StudyEnd e : ends) {
    if (e != run.end) run.end = StudyEnd::failed;  // the ranks must agree
  }
  run.log = root_log.str();
  return run;
}

Figures figures_of(const SimulationRun& run, std::size_t records) {
  Figures f;
  f.records = records;
  if (run.logs.empty()) return f;
  std::optional<Clock::time_point> first, last;
  auto extend = [&](Clock::time_point t) {
    if (!last || t > *last) last = t;
  };
  // When rank 0 received each worker's records, in order: the k-th is the worker's k-th task's.
  std::vector<std::vector<Clock::time_point>> stored(run.logs.size());
  for (const auto& [t, source] : run.logs[0]->received) {
    stored.at(static_cast<std::size_t>(source)).push_back(t);
    extend(t);
  }
  for (const auto& t : run.logs[0]->compute_end) extend(t);  // rank 0 stores its own at once
  double busy = 0;
  std::vector<double> handout, to_root, from_root;  // milliseconds
  for (std::size_t r = 0; r < run.logs.size(); ++r) {
    const RankLog& log = *run.logs[r];
    f.tasks += log.task_ids.size();
    for (std::size_t i = 0; i < log.compute_start.size(); ++i) {
      if (!first || log.compute_start[i] < *first) first = log.compute_start[i];
      busy += seconds_between(log.compute_start[i], log.compute_end[i]);
    }
    if (r == 0) continue;
    // A worker's k-th message from rank 0 is its (k+1)-th task while k < its tasks (then the
    // stop): the first after the start, each next one after the previous task's end.
    for (std::size_t k = 0; k < log.compute_end.size(); ++k) {
      const Clock::time_point asked = k == 0 ? log.ready : log.compute_end[k - 1];
      handout.push_back(1e3 * seconds_between(asked, log.arrivals[k]));
      if (k == 0 || stored[r].size() < k) continue;
      to_root.push_back(1e3 * seconds_between(asked, stored[r][k - 1]));
      from_root.push_back(1e3 * seconds_between(stored[r][k - 1], log.arrivals[k]));
    }
  }
  for (auto* values : {&handout, &to_root, &from_root}) std::sort(values->begin(), values->end());
  f.handouts = handout.size();
  f.handout_median_ms = quantile(handout, 0.5);
  f.handout_p99_ms = quantile(handout, 0.99);
  f.to_root_median_ms = quantile(to_root, 0.5);
  f.from_root_median_ms = quantile(from_root, 0.5);
  if (!first || !last) return f;
  f.wall = seconds_between(*first, *last);
  if (f.wall > 0) {
    f.idle_fraction = 1 - busy / (static_cast<double>(run.logs.size()) * f.wall);
    f.tasks_per_second = static_cast<double>(f.tasks) / f.wall;
    f.records_per_second = static_cast<double>(f.records) / f.wall;
  }
  return f;
}

std::vector<std::string> check_run(const Simulation& simulation, const SimulationRun& run,
                                   std::size_t& records) {
  std::vector<std::string> problems;
  if (run.end != StudyEnd::finished) problems.push_back("the run did not finish: " + run.log);
  std::map<std::uint32_t, int> computed;
  for (const auto& log : run.logs) {
    for (const std::uint32_t id : log->task_ids) ++computed[id];
  }
  for (const TaskSpec& t : simulation.tasks) {
    if (computed[t.task_id] != 1) {
      problems.push_back("task " + std::to_string(t.task_id) + " computed " +
                         std::to_string(computed[t.task_id]) + " times");
    }
  }
  if (computed.size() != simulation.tasks.size()) problems.push_back("unknown tasks computed");

  io::ReadOptions read;
  read.witness = false;
  const io::FileContents file = io::read_results(simulation.options.output, read);
  records = file.ws.size() + file.gen.size();
  std::map<std::uint32_t, std::size_t> rows;  // task id → its rows in the file
  for (const WsRecord& r : file.ws) ++rows[r.task_id];
  for (const GenRecord& r : file.gen) ++rows[r.task_id];
  const std::size_t gen_rows = simulation.options.study.search.trainings.size() *
                               simulation.options.study.search.objectives.size();
  for (const TaskSpec& t : simulation.tasks) {
    const std::size_t expected = t.experiment == Experiment::ws ? 1 : gen_rows;
    if (t.task_id >= file.done.size() || file.done[t.task_id] != 1) {
      problems.push_back("task " + std::to_string(t.task_id) + " not done in the file");
    }
    if (rows[t.task_id] != expected) {
      problems.push_back("task " + std::to_string(t.task_id) + ": " +
                         std::to_string(rows[t.task_id]) + " rows in the file, " +
                         std::to_string(expected) + " expected");
    }
  }
  return problems;
}

}  // namespace wordsens::scale
