// The progress line's ETA (parallel/progress.hpp) replayed on recorded runs: the measured time of
// every task of three studies run on 2 ranks, with the cost model's estimate for it
// (tests/fixtures/task_timings, written by its make_fixtures.py from the results files:
// quick.csv, quick_seed2.csv and quick_seed3.csv from jobs/configs/quick.ini at its seed and at
// seeds 2 and 3, paper_ws.csv from paper_ws.ini at 5 trials, regime_map.csv from
// regime_map.ini). Two simulated ranks take the tasks in the driver's order
// (parallel::one_per_group_then_longest_first: the cheapest task of every grid point, then the
// rest longest first), each the next as soon as it is free, on a simulated clock advanced by
// the recorded times; the Progress object learns every hand-out and every finished task through
// its interface, and its ETA is read when 10 %, 25 %, 50 %, 75 % and 90 % of the predicted cost
// is done, against the true time left (the replay's end minus now).
//
// What the replay shows (the test prints the table):
//   ETA error (ETA / time left - 1)   at 10 %   25 %   50 %   75 %   90 % of the predicted cost
//   quick       old (done/elapsed)      -10%    -5%   -26%   -26%   -38%
//               new                      +7%   +10%    -1%    -3%   -14%
//   quick_seed2 new                     +13%   +14%    +2%    -7%   -17%
//   quick_seed3 new                      -0%    +2%    -4%    -7%    -6%
//   paper_ws    old                     +84%   +51%   +28%   +25%    +6%
//               new                     +21%    -3%    -2%    -2%    -6%
//   regime_map  old                     +28%    -9%    -1%   +35%   +33%
//               new                     -16%    -4%    -3%   +11%    +8%
// The old ETA (elapsed × cost left / cost done) fails paper_ws at 10 % by +84 %: its first
// tasks ran at 2-4x their estimate (the machine was shared), the later ones at 1-2x.
//
// The cost model errs point by point (regime_map: raf_relu at n = 256, d = 128 and 64 runs at
// 1.2x its price, at d ≤ 32 and raf at n = 256 at 2-3.4x), and no rate measured on other points
// can know a point's own error. Handed out longest first, regime_map's first quarter was only
// raf_relu at d = 128 and 64 and the ETA was off by -48 % and -52 % at 10 % and 25 %; with one
// task of every point first, the expensive points have all been measured by then. That task is
// the point's cheapest: its dearest is the budget check (trial 0, priced at 3x a plain trial for
// budget-check = 2), which runs at its own rate (0.44-0.97 of that against its siblings on
// quick's cheap points: a fixed cost per task weighs more in a short task), so the cheap points
// at the end of a study would be timed by that rate alone (quick with its dearest first: -26 %,
// -20 % and -4 % at 90 % of the three recordings).
// The share of the work the line shows done follows the time: from 10 % to 90 % of the run it
// is never more than 9 points from the share of the time gone by (quick 8, 6, 7; paper_ws 9;
// regime_map 8), where the share of the tasks done was 41-57 points behind.
// ExactPricesGiveTheExactTimeLeft shows that with prices that match the times the ETA is exact
// at every point and on any number of ranks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "parallel/progress.hpp"
#include "parallel/scheduler.hpp"
#include "study/cost_model.hpp"
#include "unit/task_timings_csv.hpp"

namespace wordsens::parallel {
namespace {

struct RecordedTask {
  std::uint32_t point = 0;
  double predicted = 0;  // the cost model's seconds on one rank
  double seconds = 0;    // measured
};

std::vector<RecordedTask> read_timings(const std::string& name) {
  const auto path = (std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "fixtures" /
                     "task_timings" / (name + ".csv"))
                        .lexically_normal();
  const testing::TaskTimingsCsv csv(path.string());
  std::vector<RecordedTask> tasks;
  for (std::size_t row = 0; row < csv.size(); ++row) {
    RecordedTask task;
    task.point = static_cast<std::uint32_t>(std::stoul(csv.at(row, "point_id")));
    task.predicted = std::stod(csv.at(row, "predicted_gflop")) * 1e9 / kEffectiveFlopsPerSecond;
    task.seconds = std::stod(csv.at(row, "seconds"));
    tasks.push_back(task);
  }
  return tasks;
}

// The ETA before the hand-outs were known: the cost done per second of elapsed time, applied to
// the cost left. Biased twice with the expensive tasks first: the cost in flight is not counted
// done, and the rate of the first tasks is taken for all.
double old_eta(double elapsed, double done_cost, double total_cost) {
  return done_cost > 0 ? elapsed * (total_cost - done_cost) / done_cost : std::nan("");
}

constexpr double kFractions[] = {0.10, 0.25, 0.50, 0.75, 0.90};
constexpr std::size_t kCheckpoints = std::size(kFractions);

struct Checkpoint {
  double time = 0;  // when the fraction of the predicted cost was done
  double eta = 0;
  double old = 0;
  double left = 0;  // the true time left
  [[nodiscard]] double error() const { return eta / left - 1.0; }
  [[nodiscard]] double old_error() const { return old / left - 1.0; }
};

// What the progress line shows as done, against the share of the run's time gone by.
struct Shown {
  double time = 0;
  double work = 0;   // Progress::work_done(): of the predicted work
  double tasks = 0;  // of the tasks (the line's share before)
};

struct Replay {
  double end = 0;
  std::vector<Checkpoint> at;  // one per kFractions
  std::vector<Shown> shown;    // at every task's end
};

// Replays `tasks` on `ranks` ranks. `exact_prices`: the cost model is replaced by the measured
// times (the order follows them too).
Replay replay(const std::vector<RecordedTask>& tasks, int ranks, bool exact_prices = false) {
  std::vector<double> price;
  double total = 0;
  for (const RecordedTask& t : tasks) {
    price.push_back(exact_prices ? t.seconds : t.predicted);
    total += price.back();
  }
  std::vector<std::uint32_t> points;
  for (const RecordedTask& t : tasks) points.push_back(t.point);
  const std::vector<std::size_t> order = one_per_group_then_longest_first(price, points);
  std::vector<PlannedTask> queue;
  for (const std::size_t i : order) queue.push_back({price[i], tasks[i].point});

  double now = 0;
  std::FILE* discard = std::fopen("/dev/null", "w");
  Progress progress(queue, ranks, 1e9, discard, [&now] { return now; });
  struct Running {
    std::size_t position = 0;  // in the queue
    double end = 0;
  };
  std::vector<std::optional<Running>> rank(static_cast<std::size_t>(ranks));
  std::size_t next = 0;
  const auto hand_out = [&](std::size_t r) {
    rank[r].reset();
    if (next == queue.size()) return;
    progress.task_started(next);
    rank[r] = Running{next, now + tasks[order[next]].seconds};
    ++next;
  };
  for (std::size_t r = 0; r < rank.size(); ++r) hand_out(r);

  Replay result;
  double done_cost = 0;
  for (;;) {
    std::optional<std::size_t> first;  // the rank whose task ends first
    for (std::size_t r = 0; r < rank.size(); ++r) {
      if (rank[r] && (!first || rank[r]->end < rank[*first]->end)) first = r;
    }
    if (!first) break;
    now = rank[*first]->end;
    result.shown.push_back(
        {now, progress.work_done(),
         static_cast<double>(progress.done()) / static_cast<double>(queue.size())});
    progress.task_done(rank[*first]->position);
    done_cost += queue[rank[*first]->position].seconds;
    hand_out(*first);
    while (result.at.size() < kCheckpoints &&
           done_cost >= kFractions[result.at.size()] * total * (1 - 1e-12)) {
      result.at.push_back({now, progress.eta_seconds(), old_eta(now, done_cost, total), 0});
    }
  }
  std::fclose(discard);
  result.end = now;
  for (Checkpoint& c : result.at) c.left = result.end - c.time;
  return result;
}

void print(const std::string& name, const Replay& r) {
  std::printf("%-11s %6.0f s  old:", name.c_str(), r.end);
  for (const Checkpoint& c : r.at) std::printf(" %+5.0f%%", 100 * c.old_error());
  std::printf("   new:");
  for (const Checkpoint& c : r.at) std::printf(" %+5.0f%%", 100 * c.error());
  std::printf("\n");
}

const char* const kStudies[] = {"quick", "quick_seed2", "quick_seed3", "paper_ws", "regime_map"};

TEST(EtaReplay, TheFixturesAreWholeRuns) {
  for (const char* name : kStudies) {
    const auto tasks = read_timings(name);
    EXPECT_GE(tasks.size(), 200U) << name;
    for (const RecordedTask& t : tasks) {
      EXPECT_GT(t.predicted, 0) << name;
      EXPECT_GT(t.seconds, 0) << name;
    }
  }
}

TEST(EtaReplay, WithinAQuarterOfTheTimeLeftFromATenthOfTheCostOn) {
  std::printf("ETA error at 10/25/50/75/90 %% of the predicted cost, 2 ranks\n");
  for (const char* name : kStudies) {
    const Replay r = replay(read_timings(name), 2);
    ASSERT_EQ(r.at.size(), kCheckpoints) << name;
    print(name, r);
    // From 10 % of the predicted cost on, for every study (the table above).
    const std::size_t from = 0;
    const std::size_t to = kCheckpoints;
    for (std::size_t i = from; i < to; ++i) {
      EXPECT_LE(std::abs(r.at[i].error()), 0.25)
          << name << " at " << kFractions[i] * 100 << " %: ETA " << r.at[i].eta << " s, "
          << r.at[i].left << " s left";
    }
  }
}

// The largest gap between the share shown done and the share of the time gone by, over the run
// from 10 % to 90 % of its time.
double largest_gap(const Replay& r, double Shown::*share) {
  double gap = 0;
  for (const Shown& s : r.shown) {
    const double time = s.time / r.end;
    if (time >= 0.1 && time <= 0.9) gap = std::max(gap, std::abs(s.*share - time));
  }
  return gap;
}

TEST(EtaReplay, TheShareOfThePredictedWorkFollowsTheTime) {
  std::printf("largest |share shown - share of the time| from 10 %% to 90 %% of the time\n");
  for (const char* name : kStudies) {
    const Replay r = replay(read_timings(name), 2);
    const double work = largest_gap(r, &Shown::work);
    const double tasks = largest_gap(r, &Shown::tasks);
    std::printf("%-11s work %4.0f%%  tasks %4.0f%%\n", name, 100 * work, 100 * tasks);
    EXPECT_LE(work, 0.15) << name;
    EXPECT_GT(tasks, 0.25) << name;  // the share of tasks, handed out longest first, lags
  }
}

TEST(EtaReplay, TheOldEtaFailsTheCheck) {
  const Replay r = replay(read_timings("paper_ws"), 2);
  ASSERT_EQ(r.at.size(), kCheckpoints);
  EXPECT_GT(std::abs(r.at[0].old_error()), 0.25);  // +143 %
  EXPECT_LE(std::abs(r.at[0].error()), 0.25);
}

TEST(EtaReplay, ExactPricesGiveTheExactTimeLeft) {
  // With every task priced at its measured time, the rates are 1 and the list schedule of what
  // is in flight and waiting is the replay itself: the ETA is the time left, at every point and
  // on any number of ranks. The old ETA is not (the cost in flight, the ranks' last tasks): on
  // several ranks it is more than 5 % off somewhere in some study (paper_ws's 504 tasks on 2
  // ranks keep it within 5 %).
  for (const int ranks : {1, 2, 5}) {
    bool old_off = false;
    for (const char* name : kStudies) {
      const Replay r = replay(read_timings(name), ranks, /*exact_prices=*/true);
      ASSERT_EQ(r.at.size(), kCheckpoints) << name;
      for (const Checkpoint& c : r.at) {
        EXPECT_NEAR(c.eta, c.left, 1e-9 * r.end) << name << " on " << ranks << " ranks";
        old_off = old_off || std::abs(c.old_error()) > 0.05;
      }
    }
    if (ranks > 1) {
      EXPECT_TRUE(old_off) << "on " << ranks << " ranks";
    }
  }
}

}  // namespace
}  // namespace wordsens::parallel
