#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "core/errors.hpp"
#include "study/study.hpp"

namespace wordsens {
namespace {

StudyConfig small_study() {
  StudyConfig c;
  c.grid.experiments = {Experiment::ws, Experiment::gen};
  c.grid.models = {ModelKind::rf, ModelKind::drf, ModelKind::raf, ModelKind::raf_relu};
  c.grid.n = {4, 8};
  c.grid.d = {3};
  c.grid.k = parse_k_grid("1D,100", 1 << 30);
  c.grid.N = {5};
  c.grid.layers = {2, 3};
  c.grid.trials = 2;
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
  EXPECT_EQ(tasks.front().model, ModelKind::rf);
  EXPECT_EQ(tasks.front().k, 12);  // 1D at n=4, d=3
  EXPECT_EQ(tasks[2].k, 100);
  EXPECT_EQ(tasks.back().experiment, Experiment::gen);
  EXPECT_EQ(tasks.back().model, ModelKind::raf_relu);
  EXPECT_EQ(tasks.back().k, 0);  // k does not apply to attention
  EXPECT_EQ(tasks.back().N, 5);
  for (const auto& t : tasks) {
    EXPECT_EQ(t.layers != 1, t.model == ModelKind::drf);
    EXPECT_EQ(t.N != 0, t.experiment == Experiment::gen);
  }
}

TEST(Study, SameStudyInAnotherSpellingGivesTheSameTableAndText) {
  StudyConfig a = small_study();
  StudyConfig b = small_study();
  b.grid.models = {ModelKind::rf, ModelKind::drf, ModelKind::raf, ModelKind::raf_relu};
  b.grid.k = parse_k_grid("100, 1.00D", 1 << 30);
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
  b.search.max_evals = 7;
  EXPECT_NE(canonical_text(a), canonical_text(b));
}

TEST(Study, GenNeedsFewerSamplesThanFeatures) {
  StudyConfig c;
  c.grid.trials = 1;
  c.grid.experiments = {Experiment::gen};
  c.grid.models = {ModelKind::raf};
  c.grid.n = {4};
  c.grid.d = {3};
  c.grid.N = {12};  // p = D = 12
  EXPECT_THROW((void)plan_tasks(c), InputError);
  c.grid.N = {11};
  EXPECT_EQ(plan_tasks(c).size(), 1u);
  c.grid.models = {ModelKind::rf};
  c.grid.k = parse_k_grid("11", 100);
  EXPECT_THROW((void)plan_tasks(c), InputError);
}

}  // namespace
}  // namespace wordsens

namespace wordsens {
namespace {

TEST(Study, GenModelsRestrictTheGenExperimentOnly) {
  StudyConfig c;
  c.grid.experiments = {Experiment::ws, Experiment::gen};
  c.grid.models = {ModelKind::rf, ModelKind::drf, ModelKind::raf, ModelKind::raf_relu};
  c.grid.gen_models = {ModelKind::raf};
  c.grid.n = {4};
  c.grid.d = {3};
  c.grid.N = {5};
  c.grid.layers = {2};
  c.grid.trials = 1;
  const auto tasks = plan_tasks(c);
  ASSERT_EQ(tasks.size(), 5u);
  EXPECT_EQ(tasks[4].experiment, Experiment::gen);
  EXPECT_EQ(tasks[4].model, ModelKind::raf);
  EXPECT_NE(canonical_text(c).find("gen-models = raf\n"), std::string::npos);
  c.grid.gen_models.clear();
  EXPECT_NE(canonical_text(c).find("gen-models = rf,drf,raf,raf_relu\n"), std::string::npos);
}

TEST(Study, GenGridsOverrideNAndDForTheGenExperimentOnly) {
  StudyConfig c;
  c.grid.experiments = {Experiment::ws, Experiment::gen};
  c.grid.models = {ModelKind::raf};
  c.grid.n = {4, 8};
  c.grid.d = {3};
  c.grid.gen_n = {6};
  c.grid.gen_d = {16, 32};
  c.grid.N = {5};
  c.grid.trials = 1;
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
  c.grid.gen_n.clear();  // empty: gen uses n, and the canonical text says so
  EXPECT_NE(canonical_text(c).find("gen-n = 4,8\n"), std::string::npos);
}

}  // namespace
}  // namespace wordsens
