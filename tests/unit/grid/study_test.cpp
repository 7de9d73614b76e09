#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "grid/cost_model.hpp"
#include "grid/shard.hpp"
#include "grid/study.hpp"
#include "grid/task_output.hpp"

namespace wordsens {
namespace {

StudyConfig small_study() {
  StudyConfig c;
  c.experiments = {Experiment::ws, Experiment::gen};
  c.models = {"rf", "drf", "raf", "raf_relu"};
  c.n = {4, 8};
  c.d = {3};
  c.k = parse_k_grid("1D,100", 1 << 30);
  c.N = {5};
  c.layers = {2, 3};
  c.trials = 2;
  return c;
}

TEST(Study, TaskTableIsCanonicalWithStableIds) {
  const auto tasks = plan_tasks(small_study());
  // ws: rf 2n·2k, drf 2n·2k·2L, raf 2n, raf_relu 2n = 4+8+2+2 = 16 points; gen the same.
  ASSERT_EQ(tasks.size(), 2u * 16u * 2u);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    EXPECT_EQ(tasks[i].task_id, i);
    EXPECT_EQ(tasks[i].trial, i % 2);
    EXPECT_EQ(tasks[i].point_id, i / 2);
  }
  EXPECT_EQ(tasks.front().experiment, Experiment::ws);
  EXPECT_EQ(tasks.front().model, "rf");
  EXPECT_EQ(tasks.front().k, 12);  // 1D at n=4, d=3
  EXPECT_EQ(tasks[2].k, 100);
  EXPECT_EQ(tasks.back().experiment, Experiment::gen);
  EXPECT_EQ(tasks.back().model, "raf_relu");
  EXPECT_EQ(tasks.back().k, 0);  // k does not apply to attention
  EXPECT_EQ(tasks.back().N, 5);
  for (const auto& t : tasks) {
    EXPECT_EQ(t.layers != 1, t.model == "drf");
    EXPECT_EQ(t.N != 0, t.experiment == Experiment::gen);
  }
}

TEST(Study, SameStudyInAnotherSpellingGivesTheSameTableAndText) {
  StudyConfig a = small_study();
  StudyConfig b = small_study();
  b.models = {"rf", "drf", "raf", "raf_relu"};
  b.k = parse_k_grid("100, 1.00D", 1 << 30);
  EXPECT_EQ(canonical_text(a), canonical_text(b));
  const auto ta = plan_tasks(a), tb = plan_tasks(b);
  ASSERT_EQ(ta.size(), tb.size());
  for (std::size_t i = 0; i < ta.size(); ++i) {
    EXPECT_EQ(describe(ta[i]), describe(tb[i]));
  }
}

TEST(Study, CanonicalTextIsSortedAndSensitiveToResults) {
  const StudyConfig a = small_study();
  const std::string text = canonical_text(a);
  std::string previous;
  std::size_t lines = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const auto end = text.find('\n', pos);
    const std::string line = text.substr(pos, end - pos);
    EXPECT_LT(previous, line);
    previous = line;
    pos = end + 1;
    ++lines;
  }
  EXPECT_GE(lines, 15u);
  StudyConfig b = a;
  b.seed = 2;
  EXPECT_NE(canonical_text(a), canonical_text(b));
  b = a;
  b.max_evals = 7;
  EXPECT_NE(canonical_text(a), canonical_text(b));
}

TEST(Study, GenNeedsFewerSamplesThanFeatures) {
  StudyConfig c;
  c.trials = 1;
  c.experiments = {Experiment::gen};
  c.models = {"raf"};
  c.n = {4};
  c.d = {3};
  c.N = {12};  // p = D = 12
  EXPECT_THROW((void)plan_tasks(c), std::invalid_argument);
  c.N = {11};
  EXPECT_EQ(plan_tasks(c).size(), 1u);
  c.models = {"rf"};
  c.k = parse_k_grid("11", 100);
  EXPECT_THROW((void)plan_tasks(c), std::invalid_argument);
}

TEST(Shard, PartitionIsDisjointAndCovering) {
  for (const std::uint32_t count : {1u, 2u, 3u, 7u}) {
    std::vector<int> hits(100, 0);
    for (std::uint32_t i = 0; i < count; ++i) {
      const Shard s = Shard::parse(std::to_string(i) + "/" + std::to_string(count));
      for (std::uint32_t t = 0; t < hits.size(); ++t) hits[t] += s.contains(t) ? 1 : 0;
    }
    for (const int h : hits) EXPECT_EQ(h, 1);
  }
  for (const char* bad : {"", "1", "2/2", "0/0", "-1/2", "a/b", "1/2/3", "1/", "/2"}) {
    EXPECT_THROW((void)Shard::parse(bad), std::invalid_argument) << bad;
  }
  EXPECT_EQ(Shard::parse("3/8").to_string(), "3/8");
}

TEST(CostModel, GrowsWithSizeAndReflectsComplexities) {
  StudyConfig c;
  TaskSpec rf{0, 0, Experiment::ws, "rf", 10, 8, 80, 0, 1, 0};
  TaskSpec rf_big = rf;
  rf_big.n = 40;
  rf_big.k = 320;
  EXPECT_GT(estimated_cost(rf_big, c), estimated_cost(rf, c));
  TaskSpec raf{0, 0, Experiment::ws, "raf", 40, 8, 0, 0, 1, 0};
  // At k = D, an rf evaluation costs O(k·d) = O(n·d²) vs raf's O(n·d + d²).
  EXPECT_LT(estimated_cost(raf, c), estimated_cost(rf_big, c));
  TaskSpec gen = rf_big;
  gen.experiment = Experiment::gen;
  gen.N = 50;
  EXPECT_GT(estimated_cost(gen, c), estimated_cost(rf_big, c));
  c.positions = "first";
  EXPECT_EQ(positions_examined(rf_big, c), 1);
  c.positions = "random:5";
  EXPECT_EQ(positions_examined(rf_big, c), 5);
  EXPECT_GT(estimated_cost(rf, c), 0.0);
}

TEST(TaskOutput, EncodingRoundTripsBitwise) {
  TaskOutput out;
  out.task_id = 42;
  out.experiment = Experiment::gen;
  out.ws.S = 0.1234567890123;
  for (int i = 0; i < 4; ++i) {
    GenRecord g;
    g.task_id = 42;
    g.training = static_cast<std::uint8_t>(i / 2);
    g.objective = static_cast<std::uint8_t>(i % 2);
    g.t0 = 1.0 / 3.0 + i;
    g.D1 = -0.0;
    g.E = std::nan("");
    g.cond_K = 1e300;
    g.position = i;
    g.evaluations = 1000 + i;
    g.witness = {1.5, -2.25, 3e-300};
    out.gen.push_back(g);
  }
  Matrix X(2, 3);
  X << 1, 2, 3, 4, 5, 6;
  out.arrays.push_back({"X", -1, X});
  const auto bytes = encode(out);
  const TaskOutput back = decode_task_output(bytes);
  EXPECT_EQ(back.task_id, 42u);
  EXPECT_EQ(back.experiment, Experiment::gen);
  ASSERT_EQ(back.gen.size(), 4u);
  EXPECT_EQ(back.gen[3].t0, out.gen[3].t0);
  EXPECT_TRUE(std::signbit(back.gen[0].D1));
  EXPECT_TRUE(std::isnan(back.gen[0].E));
  EXPECT_EQ(back.gen[2].witness, out.gen[2].witness);
  EXPECT_EQ(back.gen[1].objective, 1);
  ASSERT_EQ(back.arrays.size(), 1u);
  EXPECT_EQ(back.arrays[0].values, X);
  EXPECT_EQ(encode(back), bytes);
  // Truncated or extended messages are refused.
  for (const std::size_t cut :
       {std::size_t{0}, std::size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_THROW((void)decode_task_output(std::span(bytes.data(), cut)), std::runtime_error);
  }
  auto longer = bytes;
  longer.push_back(0);
  EXPECT_THROW((void)decode_task_output(longer), std::runtime_error);
}

}  // namespace
}  // namespace wordsens

namespace wordsens {
namespace {

TEST(Study, GenModelsRestrictTheGenExperimentOnly) {
  StudyConfig c;
  c.experiments = {Experiment::ws, Experiment::gen};
  c.models = {"rf", "drf", "raf", "raf_relu"};
  c.gen_models = {"raf"};
  c.n = {4};
  c.d = {3};
  c.N = {5};
  c.layers = {2};
  c.trials = 1;
  const auto tasks = plan_tasks(c);
  ASSERT_EQ(tasks.size(), 5u);
  EXPECT_EQ(tasks[4].experiment, Experiment::gen);
  EXPECT_EQ(tasks[4].model, "raf");
  EXPECT_NE(canonical_text(c).find("gen-models = raf\n"), std::string::npos);
  c.gen_models.clear();
  EXPECT_NE(canonical_text(c).find("gen-models = rf,drf,raf,raf_relu\n"), std::string::npos);
}

TEST(Study, GenGridsOverrideNAndDForTheGenExperimentOnly) {
  StudyConfig c;
  c.experiments = {Experiment::ws, Experiment::gen};
  c.models = {"raf"};
  c.n = {4, 8};
  c.d = {3};
  c.gen_n = {6};
  c.gen_d = {16, 32};
  c.N = {5};
  c.trials = 1;
  const auto tasks = plan_tasks(c);
  ASSERT_EQ(tasks.size(), 4u);  // ws: (4,3), (8,3); gen: (6,16), (6,32)
  EXPECT_EQ(tasks[0].experiment, Experiment::ws);
  EXPECT_EQ(tasks[1].n, 8);
  EXPECT_EQ(tasks[1].d, 3);
  EXPECT_EQ(tasks[2].experiment, Experiment::gen);
  EXPECT_EQ(tasks[2].n, 6);
  EXPECT_EQ(tasks[2].d, 16);
  EXPECT_EQ(tasks[3].d, 32);
  EXPECT_NE(canonical_text(c).find("gen-n = 6\n"), std::string::npos);
  EXPECT_NE(canonical_text(c).find("gen-d = 16,32\n"), std::string::npos);
  c.gen_n.clear();  // empty: gen uses n, and the canonical text says so
  EXPECT_NE(canonical_text(c).find("gen-n = 4,8\n"), std::string::npos);
}

}  // namespace
}  // namespace wordsens
