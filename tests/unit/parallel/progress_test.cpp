// The progress line (parallel/progress.hpp) on a simulated clock: the ETA's pricing of the tasks
// waiting and in flight, its rates learned point by point, and the lines it prints.
#include "parallel/progress.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace wordsens::parallel {
namespace {

// A Progress printing into a temporary file, on a clock the test sets.
struct Fixture {
  double now = 100;  // any origin
  std::FILE* out = std::tmpfile();
  Progress progress;

  Fixture(std::vector<PlannedTask> queue, int ranks, double interval = 10)
      : progress(std::move(queue), ranks, interval, out, [this] { return now; }) {}
  ~Fixture() { std::fclose(out); }
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;

  std::string printed() const {
    std::fflush(out);
    std::rewind(out);
    std::string text;
    for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out))
      text.push_back(static_cast<char>(c));
    return text;
  }
};

std::vector<PlannedTask> tasks(std::vector<double> seconds,
                               std::vector<std::uint32_t> groups = {}) {
  std::vector<PlannedTask> queue;
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    queue.push_back({seconds[i], i < groups.size() ? groups[i] : static_cast<std::uint32_t>(i)});
  }
  return queue;
}

TEST(Progress, BeforeAnyTaskEndsTheEtaIsTheCostModelsOnTheRanks) {
  Fixture f(tasks({40, 30, 20, 10}), 2);
  EXPECT_DOUBLE_EQ(f.progress.eta_seconds(), 50);  // {40, 10} and {30, 20}
  f.progress.task_started(0);
  f.progress.task_started(1);
  f.now += 5;
  EXPECT_DOUBLE_EQ(f.progress.eta_seconds(), 45);  // in flight: 35 and 25 left
  Fixture one(tasks({40, 30, 20, 10}), 1);
  EXPECT_DOUBLE_EQ(one.progress.eta_seconds(), 100);
}

TEST(Progress, APointsOwnRateAndTheStudysRateForPointsNotYetRun) {
  // Point 7's first task takes twice its estimate. The study's rate: log 2 over 1 point and the
  // calibration's kCalibrationPoints; point 7's own: half its measurement (1 task), half that.
  Fixture f(tasks({10, 10, 10}, {7, 7, 8}), 1);
  f.progress.task_started(0);
  f.now += 20;
  f.progress.task_done(0);
  const double study = std::log(2.0) / (1 + Progress::kCalibrationPoints);
  const double point7 = study + (std::log(2.0) - study) * 1 / (1 + Progress::kPointPriorTasks);
  EXPECT_NEAR(f.progress.eta_seconds(), 10 * std::exp(point7) + 10 * std::exp(study), 1e-12);
  EXPECT_EQ(f.progress.done(), 1U);
}

TEST(Progress, ATaskInFlightCountsWhatIsLeftOfItsEstimateAndNoLess) {
  Fixture f(tasks({10, 4}), 2);
  f.progress.task_started(0);
  f.progress.task_started(1);
  f.now += 6;
  EXPECT_DOUBLE_EQ(f.progress.eta_seconds(), 4);
  f.now += 10;  // both have overrun their estimates
  EXPECT_DOUBLE_EQ(f.progress.eta_seconds(), 0);
}

TEST(Progress, NoMoreHandOutsCountsTheTasksInFlightOnly) {
  Fixture f(tasks({10, 10, 10, 10}), 2);
  f.progress.task_started(0);
  f.progress.task_started(1);
  f.now += 2;
  f.progress.task_failed(1);
  EXPECT_DOUBLE_EQ(f.progress.eta_seconds(), 18);  // 8 then 10 on one rank, 10 on the other
  f.progress.stop_handing_out();
  EXPECT_DOUBLE_EQ(f.progress.eta_seconds(), 8);
}

TEST(Progress, LinesAtTheIntervalAndTheFinalLine) {
  Fixture f(tasks({10, 30}), 1, /*interval=*/15);
  f.progress.task_started(0);
  f.now += 10;
  f.progress.tick();  // not yet due
  f.progress.task_done(0);
  f.progress.task_started(1);
  f.now += 15;
  f.progress.tick();
  f.now += 15;
  f.progress.task_done(1);
  f.progress.finish("finished");
  EXPECT_EQ(f.printed(),
            // 10 s measured for 10 s estimated: rate 1; 30 s estimated, of which 15 s have run:
            // (10 + 15) / 40 of the predicted work.
            "progress: 1/2 tasks, 62.5% of the predicted work, elapsed 25s, ETA 15s\n"
            "progress: 2/2 tasks, 100.0% of the predicted work, elapsed 40s, ETA 0s; finished\n");
}

TEST(Progress, TheLineBeforeAnyTaskEnds) {
  Fixture f(tasks({3600, 60}), 1, /*interval=*/1);
  f.progress.task_started(0);
  f.now += 60;
  f.progress.tick();
  // A minute of the hour-long task is 60 / 3660 of the work: the line moves while it runs.
  EXPECT_EQ(f.printed(),
            "progress: 0/2 tasks, 1.6% of the predicted work, elapsed 1m00s, ETA 1h00m\n");
}

// The share done counts prices, not tasks: the long task first, the short one done is a tenth.
TEST(Progress, TheShareDoneIsOfThePredictedWork) {
  Fixture f(tasks({90, 10}), 2);
  f.progress.task_started(0);
  f.progress.task_started(1);
  f.now += 10;
  f.progress.task_done(1);
  // Task 1 took its price (rate 1); task 0 has run 10 of its 90 s.
  EXPECT_DOUBLE_EQ(f.progress.work_done(), (10.0 + 10.0) / 100.0);
  f.now += 40;
  EXPECT_DOUBLE_EQ(f.progress.work_done(), (10.0 + 50.0) / 100.0);
  EXPECT_FALSE(f.progress.eta_is_lower_bound());
  f.now += 100;  // past its price: the share stops at its price, the ETA is a lower bound
  EXPECT_DOUBLE_EQ(f.progress.work_done(), 1.0);
  EXPECT_TRUE(f.progress.eta_is_lower_bound());
  EXPECT_DOUBLE_EQ(f.progress.eta_seconds(), 0);
}

TEST(Progress, ATaskPastItsPriceMakesTheEtaALowerBound) {
  Fixture f(tasks({10, 100}), 1, /*interval=*/1);
  f.progress.task_started(0);
  f.now += 25;
  f.progress.tick();
  EXPECT_EQ(f.printed(),
            "progress: 0/2 tasks, 9.1% of the predicted work, elapsed 25s, ETA at least 1m40s\n");
}

TEST(Progress, FormatDuration) {
  EXPECT_EQ(format_duration(12.4), "12s");
  EXPECT_EQ(format_duration(185), "3m05s");
  EXPECT_EQ(format_duration(3720), "1h02m");
  EXPECT_EQ(format_duration(std::nan("")), "?");
  EXPECT_EQ(format_duration(-1), "?");
}

}  // namespace
}  // namespace wordsens::parallel
