// plan_tasks against the plain enumeration it replaces (one loop per axis, in the canonical
// order), and its refusal of grids too large to build.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/model_kind.hpp"
#include "study/study.hpp"

namespace wordsens {
namespace {

// The task table written out as nested loops: experiment, model, n, d, k, L, m, N, trial.
std::vector<TaskSpec> nested_loops(const StudyConfig& c) {
  std::vector<TaskSpec> tasks;
  std::uint32_t point_id = 0;
  for (const Experiment e : {Experiment::ws, Experiment::gen}) {
    if (std::find(c.grid.experiments.begin(), c.grid.experiments.end(), e) ==
        c.grid.experiments.end())
      continue;
    for (const std::string& model : canonical_models()) {
      const auto& models = models_of(c, e);
      if (std::find(models.begin(), models.end(), model) == models.end()) continue;
      const ModelTraits& traits = model_traits(model);
      for (const Index n : n_grid_of(c, e)) {
        for (const Index d : d_grid_of(c, e)) {
          std::vector<Index> widths{0};
          if (!traits.attention) {
            widths.clear();
            for (const KItem& item : c.grid.k) widths.push_back(item.resolve(n, d));
            std::sort(widths.begin(), widths.end());
            widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
          }
          for (const Index k : widths) {
            for (const Index L : traits.deep ? c.grid.layers : std::vector<Index>{1}) {
              for (const Index m : e == Experiment::ws ? words_at(c, n) : std::vector<Index>{1}) {
                for (const Index N : e == Experiment::gen ? c.grid.N : std::vector<Index>{0}) {
                  for (std::uint32_t trial = 0; trial < c.grid.trials; ++trial) {
                    TaskSpec t;
                    t.task_id = static_cast<std::uint32_t>(tasks.size());
                    t.point_id = point_id;
                    t.experiment = e;
                    t.model = model;
                    t.n = n;
                    t.d = d;
                    t.k = k;
                    t.layers = static_cast<int>(L);
                    t.words = m;
                    t.N = N;
                    t.trial = trial;
                    tasks.push_back(t);
                  }
                  ++point_id;
                }
              }
            }
          }
        }
      }
    }
  }
  return tasks;
}

void expect_same_tables(const std::vector<TaskSpec>& a, const std::vector<TaskSpec>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("task " + std::to_string(i));
    EXPECT_EQ(a[i].task_id, b[i].task_id);
    EXPECT_EQ(a[i].point_id, b[i].point_id);
    EXPECT_EQ(a[i].experiment, b[i].experiment);
    EXPECT_EQ(a[i].model, b[i].model);
    EXPECT_EQ(a[i].n, b[i].n);
    EXPECT_EQ(a[i].d, b[i].d);
    EXPECT_EQ(a[i].k, b[i].k);
    EXPECT_EQ(a[i].layers, b[i].layers);
    EXPECT_EQ(a[i].words, b[i].words);
    EXPECT_EQ(a[i].N, b[i].N);
    EXPECT_EQ(a[i].trial, b[i].trial);
  }
}

TEST(PlanTasks, EqualsTheNestedLoopsOnEveryAxis) {
  StudyConfig c;
  c.grid.experiments = {Experiment::gen, Experiment::ws};  // planned in canonical order anyway
  c.grid.models = {"raf_relu", "rf", "drf", "raf"};
  c.grid.gen_models = {"rf", "raf"};
  c.grid.n = {4, 6, 9};
  c.grid.d = {2, 3};
  c.grid.gen_n = {5};
  c.grid.gen_d = {4, 6};
  c.grid.k = parse_k_grid("1D,0.5D,12", 1 << 30);  // 1D and 12 coincide at n·d = 12
  c.grid.N = {3, 7};
  c.grid.layers = {2, 4};
  c.grid.words = {1, 2};
  c.grid.words_fraction = {0.5};
  c.grid.trials = 3;
  const auto planned = plan_tasks(c);
  expect_same_tables(planned, nested_loops(c));
  EXPECT_GT(planned.size(), 300U);
}

TEST(PlanTasks, ASmallStudyEqualsTheNestedLoopsToo) {
  StudyConfig c;  // the defaults: ws, rf, one point
  expect_same_tables(plan_tasks(c), nested_loops(c));
}

TEST(PlanTasks, AGridTooLargeToBuildIsRefusedBeforeItIsBuilt) {
  // 10¹⁰ (n, d) points: counting stops at the limit instead of building them.
  StudyConfig c;
  c.grid.n = parse_int_grid("n", "1:100000:step1", 1, StudyLimits::max_n);
  c.grid.d = parse_int_grid("d", "1:100000:step1", 1, StudyLimits::max_d);
  try {
    (void)plan_tasks(c);
    FAIL() << "planned";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tasks, more than 10000000"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace wordsens
