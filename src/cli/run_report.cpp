#include "cli/run_report.hpp"

#include <cstdio>
#include <map>

#include "grid/cost_model.hpp"
#include "parallel/progress.hpp"

namespace wordsens::cli {
namespace {

// Assumed sustained speed of one core, only to turn flops into a rough duration.
constexpr double kFlopsPerCoreSecond = 2e9;

std::string format_flops(double flops) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", flops / 1e9);
  return buffer;
}

}  // namespace

void print_task_table(std::ostream& out, const std::vector<TaskSpec>& tasks,
                      const std::vector<std::uint32_t>& selected, const RunOptions& options) {
  struct Point {
    const TaskSpec* first = nullptr;
    std::size_t count = 0;
    double cost = 0;
  };
  std::map<std::uint32_t, Point> points;
  double total = 0;
  for (const auto id : selected) {
    const TaskSpec& t = tasks[id];
    auto& p = points[t.point_id];
    if (!p.first) p.first = &t;
    ++p.count;
    const double c = estimated_cost(t, options.study);
    p.cost += c;
    total += c;
  }
  char line[256];
  std::snprintf(line, sizeof line, "%6s  %-4s %-9s %7s %6s %10s %3s %7s %6s %12s\n", "point", "exp",
                "model", "n", "d", "k", "L", "N", "tasks", "est. Gflop");
  out << line;
  for (const auto& [id, p] : points) {
    const TaskSpec& t = *p.first;
    std::snprintf(line, sizeof line, "%6u  %-4s %-9s %7lld %6lld %10lld %3d %7lld %6zu %12s\n", id,
                  to_string(t.experiment).c_str(), t.model.c_str(), static_cast<long long>(t.n),
                  static_cast<long long>(t.d), static_cast<long long>(t.k), t.layers,
                  static_cast<long long>(t.N), p.count, format_flops(p.cost).c_str());
    out << line;
  }
  out << "total: " << selected.size() << " tasks";
  if (!options.shard.is_whole()) {
    out << " in shard " << options.shard.to_string() << " (of " << tasks.size() << ")";
  }
  out << " in " << points.size() << " grid points, est. " << format_flops(total) << " Gflop (~"
      << parallel::format_duration(total / kFlopsPerCoreSecond) << " on one core at 2 Gflop/s)\n";
}

void print_outcome(std::ostream& out, const parallel::ScheduleResult& result,
                   const RunOptions& options) {
  if (!result.per_rank.empty()) {
    // Rank 0 computes too: its count shows that no core idled as a pure coordinator.
    out << "wordsens run: tasks per rank:";
    for (const auto n : result.per_rank) out << " " << n;
    out << "\n";
  }
  switch (result.outcome) {
    case parallel::Outcome::finished:
      out << "wordsens run: finished, " << options.output << " complete\n";
      break;
    case parallel::Outcome::checkpointed:
      out << "wordsens run: checkpointed after " << result.completed
          << " tasks (USR1 or walltime); rerun the same command to resume (exit 3)\n";
      break;
    case parallel::Outcome::interrupted:
      out << "wordsens run: interrupted (TERM/INT) after " << result.completed
          << " tasks; rerun the same command to resume (exit 4)\n";
      break;
    case parallel::Outcome::failed:
      out << "wordsens run: error: " << result.failure << "\n";
      break;
  }
}

}  // namespace wordsens::cli
