// The study driver's tasks with several changed words: the task table (words, words-fraction),
// the canonical text, the records a task writes and their cost.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "data/data_source.hpp"
#include "data/synthetic.hpp"
#include "estimators/multi_word.hpp"
#include "models/shared/feature_map.hpp"
#include "study/cost_model.hpp"
#include "study/run_task.hpp"
#include "study/study.hpp"
#include "study/task_output.hpp"

namespace wordsens {
namespace {

StudyConfig words_study() {
  StudyConfig c;
  c.grid.experiments = {Experiment::ws, Experiment::gen};
  c.grid.models = {ModelKind::rf, ModelKind::raf};
  c.grid.n = {4, 8};
  c.grid.d = {3};
  c.grid.N = {5};
  c.grid.trials = 2;
  c.grid.words = {1, 2};
  c.grid.words_fraction = {0.5};
  return c;
}

TEST(MultiWordStudy, WordsArePlannedAfterTheDepthPerNForWsOnly) {
  const auto tasks = plan_tasks(words_study());
  // ws: per model, n = 4 → m ∈ {1, 2} (⌈0.5·4⌉ = 2), n = 8 → m ∈ {1, 2, 4}: 5 points; gen: 2
  // points per model; 2 trials each.
  ASSERT_EQ(tasks.size(), 2u * (5u + 2u) * 2u);
  std::vector<Index> rf_ws;
  for (const auto& t : tasks) {
    if (t.experiment == Experiment::gen) {
      EXPECT_EQ(t.words, 1);
    }
    if (t.experiment == Experiment::ws && t.model == ModelKind::rf && t.trial == 0) {
      rf_ws.push_back(t.n * 100 + t.words);
    }
    EXPECT_LE(t.words, t.n);
  }
  EXPECT_EQ(rf_ws, (std::vector<Index>{401, 402, 801, 802, 804}));
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    EXPECT_EQ(tasks[i].task_id, i);
    EXPECT_EQ(tasks[i].point_id, i / 2);
  }
}

TEST(MultiWordStudy, FractionsRoundUpWithoutPushingExactProductsOver) {
  StudyConfig c;
  c.grid.words = {};
  const auto at = [&](double f, Index n) {
    c.grid.words_fraction = {f};
    return words_at(c, n);
  };
  EXPECT_EQ(at(0.25, 8), std::vector<Index>{2});
  EXPECT_EQ(at(0.3, 10), std::vector<Index>{3});  // 0.3·10 = 3.0000000000000004 in doubles
  EXPECT_EQ(at(0.1, 25), std::vector<Index>{3});  // ⌈2.5⌉
  EXPECT_EQ(at(0.1, 5), std::vector<Index>{1});
  EXPECT_EQ(at(1.0, 7), std::vector<Index>{7});
  c.grid.words = {1, 3, 3};
  c.grid.words_fraction = {0.5};
  EXPECT_EQ(words_at(c, 6), (std::vector<Index>{1, 3}));  // merged, no repeats
}

TEST(MultiWordStudy, MoreWordsThanTheTextHasAreRefused) {
  StudyConfig c = words_study();
  c.grid.words = {1, 6};
  try {
    (void)plan_tasks(c);
    FAIL() << "m = 6 > n = 4 was planned";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("words = 6 exceeds n = 4"), std::string::npos) << e.what();
  }
  c.grid.experiments = {Experiment::gen};  // words apply to ws only
  EXPECT_NO_THROW((void)plan_tasks(c));
}

TEST(MultiWordStudy, OneWordStudiesKeepTheirTableAndCanonicalText) {
  StudyConfig one;
  StudyConfig explicit_one;
  explicit_one.grid.words = {1};
  explicit_one.search.word_sets =
      WordSetFamily::parse("greedy");  // irrelevant without several words
  EXPECT_EQ(canonical_text(one), canonical_text(explicit_one));
  EXPECT_EQ(canonical_text(one).find("words"), std::string::npos);
  const std::string text = canonical_text(words_study());
  EXPECT_NE(text.find("words = 1,2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("words-fraction = 0.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("word-sets = first\n"), std::string::npos) << text;
  StudyConfig greedy = words_study();
  greedy.search.word_sets = WordSetFamily::parse("greedy");
  EXPECT_NE(canonical_text(greedy), text);
}

TEST(MultiWordStudy, TheBudgetCheckRerunsOneWordTasksOnly) {
  StudyConfig c = words_study();
  c.search.budget_check = 2;
  for (const auto& t : plan_tasks(c)) {
    EXPECT_EQ(is_budget_check_task(t, c),
              t.experiment == Experiment::ws && t.trial == 0 && t.words == 1);
  }
}

TEST(MultiWordStudy, ATaskWithSeveralWordsStoresTheEstimatorsResult) {
  StudyConfig c;
  c.grid.models = {ModelKind::rf, ModelKind::raf};
  c.grid.n = {6};
  c.grid.d = {3};
  c.grid.trials = 1;
  c.grid.words = {1, 3};
  c.search.word_sets = WordSetFamily::parse("random:2");
  c.search.max_evals = 60;
  const SyntheticSource data(c.seed);
  for (const TaskSpec& task : plan_tasks(c)) {
    const TaskOutput out = run_task(task, c, data);
    const WsRecord& r = out.ws;
    if (task.words == 1) {
      EXPECT_EQ(r.argmax_set, std::vector<std::int64_t>{r.argmax_position});
      EXPECT_TRUE(r.examined_sets.empty());
      EXPECT_EQ(r.examined.size(), 6u);
      continue;
    }
    const auto model = make_feature_map(model_spec(task, c), {c.seed, task.task_id});
    const MultiWordResult want = estimate_multi_word_sensitivity(
        *model, data.test_sample(6, 3, task.trial), multi_word_options(c, 3), c.seed, task.task_id);
    EXPECT_EQ(r.S, want.S) << describe(task);
    EXPECT_EQ(r.argmax_position, -1);
    ASSERT_EQ(r.argmax_set.size(), 3u);
    EXPECT_EQ(r.examined_sets.size(), 2u * 3u);
    ASSERT_EQ(r.set_S.size(), 2u);
    EXPECT_EQ(std::max(r.set_S[0], r.set_S[1]), r.S);
    EXPECT_TRUE(r.examined.empty() && r.position_S.empty());
    EXPECT_EQ(std::isfinite(r.S_upper), task.model == ModelKind::rf);
    if (task.model == ModelKind::rf) {
      EXPECT_LE(r.S, r.S_upper);
    }
    // The new columns travel to rank 0 bit for bit.
    const TaskOutput back = decode_task_output(encode(out));
    EXPECT_EQ(back.ws.argmax_set, r.argmax_set);
    EXPECT_EQ(back.ws.examined_sets, r.examined_sets);
    EXPECT_EQ(back.ws.set_S, r.set_S);
  }
}

TEST(MultiWordStudy, CostGrowsWithTheWordsAndTheSetsExamined) {
  StudyConfig c;
  c.grid.models = {ModelKind::rf, ModelKind::raf};
  c.grid.n = {32};
  c.grid.d = {16};
  c.grid.words = {1, 2, 8};
  for (const ModelKind model : {ModelKind::rf, ModelKind::raf}) {
    TaskSpec t;
    t.model = model;
    t.n = 32;
    t.d = 16;
    t.k = model == ModelKind::rf ? 512 : 0;
    t.words = 2;
    c.search.word_sets = WordSetFamily::parse("first");
    const double two = estimated_cost(t, c);
    t.words = 8;
    const double eight = estimated_cost(t, c);
    EXPECT_GT(eight, two) << to_string(model);
    c.search.word_sets = WordSetFamily::parse("random:4");
    EXPECT_GT(estimated_cost(t, c), eight) << to_string(model);
    c.search.word_sets = WordSetFamily::parse(
        "greedy");  // the single-word search over all 32 words, then 25 + … + 31 sets
    EXPECT_GT(estimated_cost(t, c), 30.0 * eight) << to_string(model);
  }
}

}  // namespace
}  // namespace wordsens
