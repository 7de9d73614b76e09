#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "core/cpu_features.hpp"
#include "models/shared/model_costs.hpp"
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

// The host every measured time below was taken on: the 2-core development machine's AMD EPYC
// with AVX-512. The calibration tests price that host (PricedAs), so that they hold on a CI
// machine without AVX-512, where the kernels and so the prices differ.
constexpr CostHost kCalibrationHost{.avx512 = true};

TEST(CostModel, FullRfWithTheBoundWithinAQuarterOfItsMeasuredTimes) {
  // `wordsens ws --model rf --n N --d D --k 1.0D --positions first --trials 1` (the certified
  // bound included), one rank, the other core idle, x86-64-v3 build, with the AVX-512 Philox and
  // Gram kernels (2026-12-03).
  const PricedAs calibration_host(kCalibrationHost);
  StudyConfig c;
  c.search.positions = PositionSet::parse("first");
  struct Point {
    Index n, d;
    double seconds;
  };
  for (const Point& p : std::vector<Point>{{150, 768, 162.1}, {50, 768, 25.2}, {150, 192, 7.15}}) {
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

TEST(CostModel, AHostWithoutAvx512PaysMoreForTheNormalsAndTheGram) {
  StudyConfig c;
  c.search.positions = PositionSet::parse("first");
  const TaskSpec rf{0, 0, Experiment::ws, ModelKind::rf, 150, 768, 115200, 0, 1, 0};
  double wide = 0.0, narrow = 0.0;
  {
    const PricedAs host(CostHost{.avx512 = true});
    wide = estimated_seconds(rf, c);
  }
  {
    const PricedAs host(CostHost{.avx512 = false});
    narrow = estimated_seconds(rf, c);
  }
  EXPECT_GT(narrow, 1.1 * wide) << narrow << " vs " << wide;
  // Once the pin ends, the running CPU is priced again.
  EXPECT_EQ(cost_host().avx512, cpu_has_avx512f());
}

// The wall time the cost model predicts for study `c` on 2 ranks (the driver's longest-first
// schedule) is within a quarter of the one measured.
void expect_two_rank_wall_within_a_quarter(const StudyConfig& c, double measured) {
  const PricedAs calibration_host(kCalibrationHost);
  std::vector<double> seconds;
  for (const TaskSpec& t : plan_tasks(c)) seconds.push_back(estimated_seconds(t, c));
  const double predicted = predicted_wall_seconds(seconds, 2);
  EXPECT_GT(predicted, 0.75 * measured) << predicted;
  EXPECT_LT(predicted, 1.25 * measured) << predicted;
}

// Every study of jobs/reproduce_paper.sh, measured as one run of the script (`/usr/bin/time -v
// bash jobs/reproduce_paper.sh --update-doc` from empty results, idle, x86-64-v3 build, the 2-core
// development machine's AMD EPYC host with AVX-512, 2026-12-02; docs/REPRODUCE.md): the first
// batch of each study, on 2 ranks. The constants were calibrated on these wall times
// (models/*/..._costs.hpp), so this pins the calibration: each wall time predicted on 2 ranks
// stays within a quarter of the measured one.
StudyConfig paper_ws_config(std::vector<ModelKind> models, std::vector<Index> n,
                            std::vector<Index> d) {
  StudyConfig c;
  c.grid.experiments = {Experiment::ws};
  c.grid.models = std::move(models);
  c.grid.n = std::move(n);
  c.grid.d = std::move(d);
  c.grid.trials = 10;
  c.grid.max_trials = 20;
  c.seed = 20240206;
  c.search.max_evals = 150;
  c.search.positions = PositionSet::parse("first");
  return c;
}

TEST(CostModel, PaperWsWithinAQuarterOfItsMeasuredWallTime) {
  StudyConfig c = paper_ws_config({ModelKind::raf, ModelKind::raf_relu},
                                  {10, 20, 50, 100, 150, 200, 250}, {192, 384, 768});
  c.search.positions = PositionSet::parse("all");
  c.search.race_evaluations = 30;
  c.search.race_survivors = 128;
  ASSERT_EQ(plan_tasks(c).size(), 420u);
  expect_two_rank_wall_within_a_quarter(c, 514.0);  // 8 min 34 s
}

TEST(CostModel, PaperWsRfWithinAQuarterOfItsMeasuredWallTime) {
  StudyConfig c =
      paper_ws_config({ModelKind::rf}, {90, 100, 110, 120, 130, 140, 150}, {192, 384, 768});
  c.grid.trials = 5;
  c.grid.max_trials = 0;
  c.rf_sampling = RfSampling::marginal;
  ASSERT_EQ(plan_tasks(c).size(), 105u);
  expect_two_rank_wall_within_a_quarter(c, 310.0);  // 5 min 10 s
}

TEST(CostModel, PaperWsRfBoundWithinAQuarterOfItsMeasuredWallTime) {
  const StudyConfig c = paper_ws_config({ModelKind::rf}, {10, 20, 50, 100}, {192, 384, 768});
  ASSERT_EQ(plan_tasks(c).size(), 120u);
  expect_two_rank_wall_within_a_quarter(c, 632.0);  // 10 min 32 s
}

TEST(CostModel, PaperWsDrfWithinAQuarterOfItsMeasuredWallTime) {
  StudyConfig c = paper_ws_config({ModelKind::drf}, {5, 10, 20}, {192});
  c.grid.layers = {2, 4, 8};
  ASSERT_EQ(plan_tasks(c).size(), 90u);
  expect_two_rank_wall_within_a_quarter(c, 386.0);  // 6 min 26 s
}

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
  expect_two_rank_wall_within_a_quarter(c, 911.0);  // 15 min 11 s
}

// Configurations of small tasks, where per-call overheads and short rows of random numbers weigh
// most. paper_glove_brown's tasks are priced on synthetic texts of the same sizes.
TEST(CostModel, RegimeMapWithinAQuarterOfItsMeasuredWallTime) {
  StudyConfig c;
  c.grid.experiments = {Experiment::ws};
  c.grid.models = {ModelKind::raf, ModelKind::raf_relu};
  c.grid.n = {8, 16, 32, 64, 128, 256};
  c.grid.d = {8, 16, 32, 64, 128};
  c.grid.trials = 5;
  c.seed = 20240206;
  c.search.positions = PositionSet::parse("all");
  c.search.race_evaluations = 30;
  c.search.race_survivors = 128;
  c.descriptive = true;
  ASSERT_EQ(plan_tasks(c).size(), 300u);
  expect_two_rank_wall_within_a_quarter(c, 96.0);  // 1 min 36 s
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
  expect_two_rank_wall_within_a_quarter(c, 147.0);  // 2 min 27 s
}

TEST(CostModel, MultiwordWithinAQuarterOfItsMeasuredWallTime) {
  StudyConfig c;
  c.grid.experiments = {Experiment::ws};
  c.grid.models = {ModelKind::rf, ModelKind::raf};
  c.grid.n = {16, 32, 64};
  c.grid.d = {8, 64};
  c.grid.words = {1, 2, 4, 8};
  c.grid.words_fraction = {0.125};
  c.grid.trials = 20;
  c.grid.max_trials = 40;
  c.seed = 20240206;
  c.search.positions = PositionSet::parse("all");
  c.search.word_sets = WordSetFamily::parse("first");
  ASSERT_EQ(plan_tasks(c).size(), 960u);
  expect_two_rank_wall_within_a_quarter(c, 90.0);  // 1 min 30 s
}

// jobs/configs/trained_minilm.ini at layer 3 (`bash jobs/trained_minilm.sh --layers 3`: 2 ranks,
// an x86-64-v3 build with the attention's row blocks, an AMD EPYC host with AVX-512 whose BM_Dgemm
// runs at 53.9 GFLOPS when idle, 2026-12-07): the seconds of each grid point's 10 tasks, the
// trained model and its twin averaged (they cost the same), from the file's own `seconds`. That
// host is faster than the one the other tests' times were taken on, so this pins the trained
// family's prices in proportion: one factor, the ratio of the totals, brings every grid point of n
// ≥ 32 within a quarter of its measured time, and that factor is within a quarter of the two hosts'
// dense rates (the model's kEffectiveFlopsPerSecond · kDenseSpeedup, 38.4 GFLOPS, against 53.9).
TEST(CostModel, TrainedMinilmPricesItsTasksInProportionToTheirMeasuredTimes) {
  const PricedAs measured_host(CostHost{.avx512 = true});
  StudyConfig c;
  c.search.positions = PositionSet::parse("first");
  c.search.max_evals = 40;
  c.search.min_total_sphere_starts = 2;
  struct Point {
    ModelKind model;
    Index n;
    double seconds;
  };
  const std::vector<Point> points{
      {ModelKind::trained_attn, 32, 0.4085},    {ModelKind::trained_attn, 64, 0.5715},
      {ModelKind::trained_attn, 128, 0.938},    {ModelKind::trained_attn, 256, 1.7485},
      {ModelKind::trained_layer, 32, 9.9345},   {ModelKind::trained_layer, 64, 17.478},
      {ModelKind::trained_layer, 128, 32.2385}, {ModelKind::trained_layer, 256, 64.648}};
  std::vector<double> predicted;
  double measured_total = 0.0, predicted_total = 0.0;
  for (const Point& p : points) {
    const TaskSpec task{0, 0, Experiment::ws, p.model, p.n, 384, 0, 0, 1, 1};
    predicted.push_back(10.0 * estimated_seconds(task, c));
    predicted_total += predicted.back();
    measured_total += p.seconds;
  }
  const double host = measured_total / predicted_total;
  EXPECT_GT(host, 0.75 * 38.4 / 53.9) << host;
  EXPECT_LT(host, 1.25 * 38.4 / 53.9) << host;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double scaled = host * predicted[i];
    EXPECT_GT(scaled, 0.75 * points[i].seconds) << points[i].n << ": " << scaled;
    EXPECT_LT(scaled, 1.25 * points[i].seconds) << points[i].n << ": " << scaled;
  }
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
