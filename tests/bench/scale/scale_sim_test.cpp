// The scale simulation at 64 ranks (a few seconds): every task computed once, every record in
// the file, the figures measured, the file the same on 1 and 64 ranks; and the stand-in records
// of the shape run_task gives. The measurement at 256 and 1024 ranks is scale_sim's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "data/data_source.hpp"
#include "io/results_file.hpp"
#include "scale/scale_setup.hpp"
#include "scale/stand_in_output.hpp"
#include "study/run_task.hpp"

namespace wordsens::scale {
namespace {

namespace fs = std::filesystem;

const std::string kSource = WORDSENS_SOURCE_DIR;
const std::string kRegimeMap = kSource + "/jobs/configs/regime_map.ini";
const std::string kRegimeMapTimings = kSource + "/tests/fixtures/task_timings/regime_map.csv";

class ScaleSim : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("wordsens_scale_sim_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  [[nodiscard]] std::string output(const std::string& name) const {
    return (dir_ / (name + ".h5")).string();
  }
  fs::path dir_;
};

// Runs a simulation, expects it to pass check_run; its figures.
Figures run_checked(const Simulation& simulation) {
  const SimulationRun run = simulate(simulation);
  std::size_t records = 0;
  const std::vector<std::string> problems = check_run(simulation, run, records);
  EXPECT_TRUE(problems.empty()) << problems.front();
  return figures_of(run, records);
}

TEST_F(ScaleSim, SixtyFourRanksComputeEveryTaskOnceAndStoreEveryRecord) {
  Simulation timed = timed_simulation(kRegimeMap, kRegimeMapTimings, 64, output("timed"));
  ASSERT_EQ(timed.tasks.size(), 300U);
  // Compressed for speed alone (rank 0's throughput taken as unbounded): a test, not a figure.
  timed.compression = compression_for(timed.seconds, timed.ranks, 1.5, 1e12, 1.0);
  const Figures f = run_checked(timed);
  EXPECT_EQ(f.tasks, 300U);
  EXPECT_EQ(f.records, 300U);  // one /ws row a task
  // 300 tasks on 64 ranks: a hand-out for each task of a worker (rank 0 computes a few itself),
  // most workers run several, so both legs of a hand-out after a task are measured.
  EXPECT_GT(f.handouts, 250U);
  EXPECT_LT(f.handouts, 300U);
  EXPECT_GT(f.handout_median_ms, 0);
  EXPECT_GT(f.to_root_median_ms, 0);
  EXPECT_GT(f.from_root_median_ms, 0);
  EXPECT_TRUE(std::isfinite(f.handout_p99_ms));
  EXPECT_GE(f.handout_p99_ms, f.handout_median_ms);
  EXPECT_GT(f.wall, 1.0);  // at least the longest task, compressed to 1.5 s
  EXPECT_GT(f.idle_fraction, 0);
  EXPECT_LT(f.idle_fraction, 1);
}

TEST_F(ScaleSim, RankZerosThroughputIsMeasuredWithTasksThatTakeNoTime) {
  const Simulation s = throughput_simulation(kRegimeMap, 64, 1500, output("throughput"));
  ASSERT_GE(s.tasks.size(), 1500U);
  const Figures f = run_checked(s);
  EXPECT_EQ(f.tasks, s.tasks.size());
  EXPECT_GT(f.tasks_per_second, 0);
  EXPECT_TRUE(std::isfinite(f.tasks_per_second));
  EXPECT_DOUBLE_EQ(f.records_per_second, f.tasks_per_second);  // ws: a record a task
}

std::vector<std::vector<std::uint8_t>> records_of(const std::string& path) {
  const io::FileContents file = io::read_results(path);
  std::vector<std::vector<std::uint8_t>> records;
  for (const WsRecord& r : file.ws) {
    TaskOutput out;
    out.task_id = r.task_id;
    out.ws = r;
    records.push_back(encode(out));
  }
  return records;
}

TEST_F(ScaleSim, TheFileHoldsTheSameRecordsOnOneRankAndOnSixtyFour) {
  Simulation one = timed_simulation(kRegimeMap, "", 1, output("one"));
  one.compression = 0;
  Simulation many = timed_simulation(kRegimeMap, "", 64, output("many"));
  many.compression = 0;
  run_checked(one);
  run_checked(many);
  const auto records = records_of(one.options.output);
  EXPECT_EQ(records.size(), 300U);
  EXPECT_EQ(records_of(many.options.output), records);
}

TEST(CompressionFor, LastsTheTargetWallUnlessRankZeroWouldBeLoadedBeyondTheCap) {
  const std::vector<double> seconds{4, 1, 1, 1, 1};  // longest 4 s; 8 s over 2 ranks: 4 s
  EXPECT_DOUBLE_EQ(compression_for(seconds, 2, 0.5, 1e9, 0.3), 8.0);  // 4 s → 0.5 s
  // 2 ranks finish 2 / 1.6 s = 1.25 tasks/s; 30 % of 10 tasks/s allows 3 / 1.25 = 2.4x.
  EXPECT_DOUBLE_EQ(compression_for(seconds, 2, 0.5, 10, 0.3), 2.4);
  // Real tasks already loading rank 0 beyond the cap: not compressed at all.
  EXPECT_DOUBLE_EQ(compression_for(seconds, 2, 0.5, 1, 0.3), 1.0);
  EXPECT_DOUBLE_EQ(finishing_rate(seconds, 2), 1.25);
  EXPECT_DOUBLE_EQ(finishing_rate(seconds, 100), 5 / 1.6);  // 5 tasks at most in flight
}

// A study of tiny tasks of every shape the paper's configurations have: ws at all positions, at
// the first and at random ones, gen with both training modes and both objectives.
StudyConfig tiny_study(PositionSet positions) {
  StudyConfig s;
  s.grid.experiments = {Experiment::ws, Experiment::gen};
  s.grid.models = {ModelKind::rf, ModelKind::raf};
  s.grid.n = {4};
  s.grid.d = {3};
  s.grid.N = {5};
  s.grid.trials = 1;
  s.seed = 7;
  s.search.max_evals = 40;
  s.search.positions = positions;
  s.search.budget_check = 2;
  return s;
}

TEST(StandInOutput, HasTheShapeOfRunTasksOutput) {
  for (const char* positions : {"all", "first", "random:2"}) {
    const StudyConfig study = tiny_study(PositionSet::parse(positions));
    const SyntheticSource data(study.seed);
    for (const TaskSpec& task : plan_tasks(study)) {
      const TaskOutput real = run_task(task, study, data);
      const TaskOutput stand_in = stand_in_output(task, study);
      EXPECT_EQ(encode(stand_in).size(), encode(real).size()) << describe(task);
      EXPECT_EQ(stand_in.ws.examined.size(), real.ws.examined.size()) << describe(task);
      EXPECT_EQ(stand_in.gen.size(), real.gen.size()) << describe(task);
      EXPECT_EQ(std::isnan(stand_in.ws.S_budget_check), std::isnan(real.ws.S_budget_check))
          << describe(task);
    }
  }
}

}  // namespace
}  // namespace wordsens::scale
