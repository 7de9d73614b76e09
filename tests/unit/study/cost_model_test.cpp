#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "core/cpu_features.hpp"
#include "models/bounds/float_gram.hpp"
#include "study/cost_model.hpp"
#include "study/study.hpp"

namespace wordsens {
namespace {

TEST(CostModel, WallTimeIsLongestFirstListScheduling) {
  const std::vector<double> tasks{3.0, 3.0, 2.0, 2.0, 2.0};
  EXPECT_DOUBLE_EQ(predicted_wall_seconds(tasks, 1), 12.0);
  // Longest first on 2 cores: {3, 2, 2} and {3, 2}.
  EXPECT_DOUBLE_EQ(predicted_wall_seconds(tasks, 2), 7.0);
  // More cores than tasks: the longest task.
  EXPECT_DOUBLE_EQ(predicted_wall_seconds(tasks, 16), 3.0);
  EXPECT_DOUBLE_EQ(predicted_wall_seconds({}, 2), 0.0);
  EXPECT_THROW((void)predicted_wall_seconds(tasks, 0), std::invalid_argument);
}

TEST(CostModel, GrowsWithSizeAndReflectsComplexities) {
  StudyConfig c;
  TaskSpec rf{0, 0, Experiment::ws, ModelKind::rf, 10, 8, 80, 0, 1, 0};
  TaskSpec rf_big = rf;
  rf_big.n = 40;
  rf_big.k = 320;
  EXPECT_GT(estimated_cost(rf_big, c), estimated_cost(rf, c));
  TaskSpec raf{0, 0, Experiment::ws, ModelKind::raf, 40, 8, 0, 0, 1, 0};
  // At k = D, an rf evaluation costs O(k·d) = O(n·d²) vs raf's O(n·d + d²).
  EXPECT_LT(estimated_cost(raf, c), estimated_cost(rf_big, c));
  TaskSpec gen = rf_big;
  gen.experiment = Experiment::gen;
  gen.N = 50;
  TaskSpec gen_more = gen;
  gen_more.N = 200;
  // The head's Gram, features and solves grow with the training set.
  EXPECT_GT(estimated_cost(gen_more, c), estimated_cost(gen, c));
  EXPECT_GT(estimated_cost(gen, c), 0.0);
  c.search.positions = PositionSet::parse("first");
  EXPECT_EQ(positions_examined(rf_big, c), 1);
  c.search.positions = PositionSet::parse("random:5");
  EXPECT_EQ(positions_examined(rf_big, c), 5);
  EXPECT_GT(estimated_cost(rf, c), 0.0);
}

TEST(CostModel, RafWsTaskWithinTwiceItsMeasuredTime) {
  StudyConfig c;
  const TaskSpec raf{0, 0, Experiment::ws, ModelKind::raf, 50, 192, 0, 0, 1, 0};
  // Calibration point: this task took 0.31 s with 25064 evaluations on the 2-core
  // development machine (batched search; 1.5 s one point at a time); the model must stay
  // within a factor 2.
  EXPECT_GT(estimated_seconds(raf, c), 0.155) << estimated_seconds(raf, c);
  EXPECT_LT(estimated_seconds(raf, c), 0.62) << estimated_seconds(raf, c);
}

TEST(CostModel, FullRfWithTheBoundWithinAQuarterOfItsMeasuredTimes) {
  // `wordsens ws --model rf --n N --d D --k 1.0D --positions first --trials 1` (the certified
  // bound included), one rank, the other core idle, x86-64-v3 build on the 2-core development
  // machine (AVX-512): the points the rf constants were calibrated on. With the AVX-512 Philox
  // and Gram kernels, and before them (AVX2 Philox and Gram: the nearest measurement to a CPU
  // without AVX-512, which also runs Box–Muller in AVX2).
  StudyConfig c;
  c.search.positions = PositionSet::parse("first");
  struct Point {
    Index n, d;
    double seconds;
  };
  const bool wide = cpu_has_avx512f() && FloatGram::wide_kernel_available();
  const std::vector<Point> measured =
      wide ? std::vector<Point>{{150, 768, 177.5}, {50, 768, 27.0}, {150, 192, 7.55}}
           : std::vector<Point>{{150, 768, 244.8}, {50, 768, 44.4}, {150, 192, 8.6}};
  for (const Point& p : measured) {
    const TaskSpec rf{0, 0, Experiment::ws, ModelKind::rf, p.n, p.d, p.n * p.d, 0, 1, 0};
    const double predicted = estimated_seconds(rf, c);
    EXPECT_GT(predicted, 0.75 * p.seconds) << p.n << " x " << p.d << ": " << predicted;
    EXPECT_LT(predicted, 1.25 * p.seconds) << p.n << " x " << p.d << ": " << predicted;
  }
  // Without S_upper the 150 word Grams are not computed.
  const TaskSpec big{0, 0, Experiment::ws, ModelKind::rf, 150, 768, 115200, 0, 1, 0};
  const double with_bound = estimated_seconds(big, c);
  c.search.upper_bound = false;
  EXPECT_LT(estimated_seconds(big, c), 0.6 * with_bound);
}

// The wall time the cost model predicts for study `c` on 2 ranks (the driver's longest-first
// schedule) is within a quarter of the one measured.
void expect_two_rank_wall_within_a_quarter(const StudyConfig& c, double measured) {
  std::vector<double> seconds;
  for (const TaskSpec& t : plan_tasks(c)) seconds.push_back(estimated_seconds(t, c));
  const double predicted = predicted_wall_seconds(seconds, 2);
  EXPECT_GT(predicted, 0.75 * measured) << predicted;
  EXPECT_LT(predicted, 1.25 * measured) << predicted;
}

// jobs/configs/paper_gen.ini (`mpirun -n 2 build/release/src/wordsens run
// jobs/configs/paper_gen.ini`, its 10 trials), idle, x86-64-v3 build on the 2-core development
// machine's AVX-512 host: 19 min 59.5 s (2026-12-02, with the marginal sampler's Φ kept by gram
// for the head's transpose and the texts no longer copied; 22 min 48 s before, 2026-12-01). Earlier
// at 5 trials: 15 min 56.7 s on its host without AVX-512 (2026-11-29), 18 min 31.6 s on the
// AVX-512 host before gen's lockstep searches (2026-11-27), on which the rest of the constants
// were calibrated. The gen constants were calibrated on per-task times (docs/REPRODUCE.md), so
// this pins the calibration: the wall time predicted on 2 ranks stays within a quarter of the
// measured one.
TEST(CostModel, PaperGenWithinAQuarterOfItsMeasuredWallTime) {
  StudyConfig c;
  c.grid.experiments = {Experiment::gen};
  c.grid.models = {ModelKind::rf, ModelKind::raf};
  c.grid.n = {40, 120};
  c.grid.d = {768};
  c.grid.N = {1100, 1200, 1300};
  c.grid.trials = 10;
  c.seed = 20240206;
  c.search.positions = PositionSet::parse("first");
  c.rf_sampling = RfSampling::marginal;
  ASSERT_EQ(plan_tasks(c).size(), 120u);
  expect_two_rank_wall_within_a_quarter(c, 1199.5);
}

// Two configurations of small tasks, where per-call overheads and short rows of random numbers
// weigh most, measured idle on 2 ranks (`mpirun -n 2 build/release/src/wordsens run
// jobs/configs/<config>.ini`, x86-64-v3 build, the 2-core development machine with AVX-512,
// 2026-11-27): regime_map 4 min 06.8 s, paper_glove_brown 4 min 37.3 s (its tasks priced on
// synthetic texts of the same sizes). Each predicted wall time on 2 ranks stays within a quarter.
// paper_glove_brown's figure predates gen's lockstep searches and one certification pass for
// all searches: on the machine's AMD host without AVX-512 (2026-11-29) those took the study from
// 9 min 28.7 s to 6 min 20.5 s, so it is due to be measured again on the AVX-512 host.
TEST(CostModel, RegimeMapWithinAQuarterOfItsMeasuredWallTime) {
  StudyConfig c;
  c.grid.experiments = {Experiment::ws};
  c.grid.models = {ModelKind::raf, ModelKind::raf_relu};
  c.grid.n = {8, 16, 32, 64, 128, 256};
  c.grid.d = {8, 16, 32, 64, 128};
  c.grid.trials = 5;
  c.seed = 20240206;
  c.search.positions = PositionSet::parse("all");
  ASSERT_EQ(plan_tasks(c).size(), 300u);
  expect_two_rank_wall_within_a_quarter(c, 246.8);
}

TEST(CostModel, PaperGloveBrownWithinAQuarterOfItsMeasuredWallTime) {
  StudyConfig c;
  c.grid.experiments = {Experiment::ws, Experiment::gen};
  c.grid.models = {ModelKind::rf, ModelKind::raf};
  c.grid.n = {10, 17, 29, 50, 85, 146, 250};  // 10:250:log7
  c.grid.d = {25, 50, 100};
  c.grid.N = {50};
  c.grid.trials = 10;
  c.seed = 20240206;
  c.search.positions = PositionSet::parse("first");
  ASSERT_EQ(plan_tasks(c).size(), 840u);
  expect_two_rank_wall_within_a_quarter(c, 277.3);
}

TEST(CostModel, AscentLengthIsCappedByMaxEvals) {
  StudyConfig c;
  const TaskSpec rf{0, 0, Experiment::ws, ModelKind::rf, 10, 8, 80, 0, 1, 0};
  const double typical = expected_evaluations_per_start(rf, c);
  c.search.max_evals = 10;
  EXPECT_DOUBLE_EQ(expected_evaluations_per_start(rf, c), 10.0);
  EXPECT_GT(typical, 10.0);
  const double capped = estimated_cost(rf, c);
  c.search.max_evals = 300;
  EXPECT_GT(estimated_cost(rf, c), capped);
}

// raf_relu's ascents at n = 150, d = 384 (`wordsens ws --model raf_relu --n 150 --d 384
// --positions all --trials 2 --seed 20240206 --max-evals B --format csv`): (evaluations /
// positions − 32 screened) / 7 starts per position = 187, 120 and 76 at B = 300, 150 and 80.
// About half of them stall until any budget, so halving it does not halve their length.
TEST(CostModel, RafRelusAscentsShortenLessThanTheirBudget) {
  StudyConfig c;
  const TaskSpec relu{0, 0, Experiment::ws, ModelKind::raf_relu, 150, 384, 0, 0, 1, 0};
  const double measured[][2] = {{300, 187}, {150, 120}, {80, 76}};
  for (const auto& [budget, evaluations] : measured) {
    c.search.max_evals = static_cast<int>(budget);
    EXPECT_NEAR(expected_evaluations_per_start(relu, c), evaluations, 0.1 * evaluations)
        << "max-evals = " << budget;
  }
  // A model whose ascents converge keeps its count under any budget above it.
  const TaskSpec raf{0, 0, Experiment::ws, ModelKind::raf, 150, 384, 0, 0, 1, 0};
  c.search.max_evals = 150;
  EXPECT_DOUBLE_EQ(expected_evaluations_per_start(raf, c), 80.0);
}

}  // namespace
}  // namespace wordsens
