// plan_tasks against the plain enumeration it replaces (one loop per axis, in the canonical
// order), and its refusal of grids too large to build.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/errors.hpp"
#include "models/shared/model_kind.hpp"
#include "study/study.hpp"

namespace wordsens {
namespace {

// The task table written out as nested loops: experiment, model, n, d, k, L, H, m, N, trial.
std::vector<TaskSpec> nested_loops(const StudyConfig& c) {
  std::vector<TaskSpec> tasks;
  std::uint32_t point_id = 0;
  for (const Experiment e : {Experiment::ws, Experiment::gen}) {
    if (std::find(c.grid.experiments.begin(), c.grid.experiments.end(), e) ==
        c.grid.experiments.end())
      continue;
    for (const ModelTraits& traits : all_models()) {
      const ModelKind model = traits.kind;
      const auto& models = models_of(c, e);
      if (std::find(models.begin(), models.end(), model) == models.end()) continue;
      for (const Index n : n_grid_of(c, e)) {
        for (const Index d : d_grid_of(c, e)) {
          // rf and drf: the k grid at (n, d); block: its MLP's, at d; the others none.
          std::vector<Index> widths{0};
          if (traits.width != ModelWidth::none) {
            widths.clear();
            if (traits.width == ModelWidth::features) {
              for (const KItem& item : c.grid.k) widths.push_back(item.resolve(n, d));
            } else {
              for (const MlpWidthItem& item : c.grid.mlp_width) widths.push_back(item.resolve(d));
            }
            std::sort(widths.begin(), widths.end());
            widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
          }
          for (const Index k : widths) {
            for (const Index L : traits.deep ? c.grid.layers : std::vector<Index>{1}) {
              for (const Index H : traits.multi_head ? c.grid.heads : std::vector<Index>{1}) {
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
                      t.heads = static_cast<int>(H);
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
    EXPECT_EQ(a[i].heads, b[i].heads);
    EXPECT_EQ(a[i].words, b[i].words);
    EXPECT_EQ(a[i].N, b[i].N);
    EXPECT_EQ(a[i].trial, b[i].trial);
  }
}

// A study planned at once keys every task's random streams by its task id, as before
// first-trial, max-trials and select existed (the records of older files stay reproducible).
void expect_entities_are_task_ids(const std::vector<TaskSpec>& tasks) {
  for (const TaskSpec& t : tasks) EXPECT_EQ(t.stream_entity, t.task_id) << describe(t);
}

TEST(PlanTasks, EqualsTheNestedLoopsOnEveryAxis) {
  StudyConfig c;
  c.grid.experiments = {Experiment::gen, Experiment::ws};  // planned in canonical order anyway
  c.grid.models = {ModelKind::raf_relu, ModelKind::rf, ModelKind::drf, ModelKind::raf};
  c.grid.gen_models = {ModelKind::rf, ModelKind::raf};
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
  expect_entities_are_task_ids(planned);
  EXPECT_GT(planned.size(), 300U);
}

// H is an axis of the multi-head models only: every other model keeps H = 1 and one point.
TEST(PlanTasks, TheHeadsGridMultipliesTheMultiHeadModelsOnly) {
  StudyConfig c;
  c.grid.models = {ModelKind::rf, ModelKind::raf, ModelKind::mhraf, ModelKind::block};
  c.grid.n = {4, 8};
  c.grid.d = {8};
  c.grid.heads = {1, 2, 4};
  c.grid.trials = 2;
  const auto planned = plan_tasks(c);
  expect_same_tables(planned, nested_loops(c));
  expect_entities_are_task_ids(planned);
  std::map<ModelKind, std::set<int>> heads_of;
  for (const TaskSpec& t : planned) heads_of[t.model].insert(t.heads);
  EXPECT_EQ(heads_of[ModelKind::rf], (std::set<int>{1}));
  EXPECT_EQ(heads_of[ModelKind::raf], (std::set<int>{1}));
  EXPECT_EQ(heads_of[ModelKind::mhraf], (std::set<int>{1, 2, 4}));
  EXPECT_EQ(heads_of[ModelKind::block], (std::set<int>{1, 2, 4}));
  EXPECT_EQ(planned.size(), 2u * 2u * (1 + 1 + 3 + 3));
  for (const TaskSpec& t : planned) EXPECT_EQ(model_spec(t, c).heads, t.heads) << describe(t);
}

// The MLP width is an axis of block only, from mlp-width (multiples of d, integers): rf keeps
// the k grid, the attention models without an MLP k = 0; each width is one point of its own.
TEST(PlanTasks, TheMlpWidthGridMultipliesTheBlockOnly) {
  StudyConfig c;
  c.grid.models = {ModelKind::rf, ModelKind::raf, ModelKind::mhraf, ModelKind::block};
  c.grid.n = {4, 8};
  c.grid.d = {8, 16};
  c.grid.k = parse_k_grid("0.5D", 1 << 30);
  c.grid.mlp_width = parse_mlp_width_grid("2d,4d,24", 1 << 30);  // 24 = 3d at d = 8
  c.grid.heads = {1, 2};
  c.grid.trials = 2;
  const auto planned = plan_tasks(c);
  expect_same_tables(planned, nested_loops(c));
  expect_entities_are_task_ids(planned);
  std::map<ModelKind, std::set<Index>> widths_of;
  for (const TaskSpec& t : planned) {
    widths_of[t.model].insert(t.k);
    EXPECT_EQ(model_spec(t, c).k, t.k) << describe(t);
    if (t.model == ModelKind::rf) {
      EXPECT_EQ(t.k, t.n * t.d / 2) << describe(t);
    }
    if (t.model == ModelKind::block) {
      EXPECT_NE(describe(t).find(" k=" + std::to_string(t.k)), std::string::npos);
    }
  }
  EXPECT_EQ(widths_of[ModelKind::raf], (std::set<Index>{0}));
  EXPECT_EQ(widths_of[ModelKind::mhraf], (std::set<Index>{0}));
  EXPECT_EQ(widths_of[ModelKind::block], (std::set<Index>{16, 24, 32, 64}));
  // 2 trials × 2 n × (rf 2 d + raf 2 d + mhraf 2 d × 2 H + block (3 widths at d = 8 and 3 at
  // d = 16) × 2 H).
  EXPECT_EQ(planned.size(), 2u * 2u * (2 + 2 + 4 + 12));
}

// The default width, 4d, plans what a study planned before mlp-width existed: the same points,
// ids and streams (block's stored k is now its width), and its text names no mlp-width, so the
// files of those versions resume; another width is named, and only where a block runs.
TEST(PlanTasks, TheDefaultMlpWidthKeepsThePointsAndTheText) {
  StudyConfig c;
  c.grid.models = {ModelKind::raf, ModelKind::block};
  c.grid.n = {4, 8};
  c.grid.d = {8};
  const auto four = plan_tasks(c);
  for (const TaskSpec& t : four) {
    EXPECT_EQ(t.k, t.model == ModelKind::block ? kBlockWidthFactor * t.d : 0) << describe(t);
  }
  EXPECT_EQ(canonical_text(c).find("mlp-width"), std::string::npos);
  c.grid.mlp_width = parse_mlp_width_grid("2d", 1 << 30);
  const auto two = plan_tasks(c);
  ASSERT_EQ(four.size(), two.size());
  for (std::size_t i = 0; i < four.size(); ++i) {
    EXPECT_EQ(four[i].stream_entity, two[i].stream_entity);
    EXPECT_EQ(four[i].point_id, two[i].point_id);
  }
  EXPECT_NE(canonical_text(c).find("\nmlp-width = 2d\n"), std::string::npos);
  c.grid.models = {ModelKind::raf, ModelKind::mhraf};
  EXPECT_EQ(canonical_text(c).find("mlp-width"), std::string::npos);
}

// One value of H plans what a study planned before H was a grid: the same points, ids and
// random streams whatever the value (so the records of older files stay reproducible).
TEST(PlanTasks, OneValueOfHKeepsEveryPointsIdAndStreams) {
  StudyConfig c;
  c.grid.models = {ModelKind::raf, ModelKind::mhraf, ModelKind::block};
  c.grid.n = {4, 8};
  c.grid.d = {8};
  c.grid.heads = {4};
  const auto four = plan_tasks(c);
  c.grid.heads = {2};
  const auto two = plan_tasks(c);
  ASSERT_EQ(four.size(), two.size());
  for (std::size_t i = 0; i < four.size(); ++i) {
    EXPECT_EQ(four[i].stream_entity, two[i].stream_entity);
    EXPECT_EQ(four[i].point_id, two[i].point_id);
    EXPECT_EQ(four[i].heads, traits(four[i].model).multi_head ? 4 : 1);
  }
  EXPECT_NE(canonical_text(c).find("\nheads = 2\n"), std::string::npos);
  c.grid.heads = {1, 2, 4};
  EXPECT_NE(canonical_text(c).find("\nheads = 1,2,4\n"), std::string::npos);
}

// Each H must divide every d: refused with one line naming the model and the sizes.
TEST(PlanTasks, AHeadCountThatDoesNotDivideDIsRefused) {
  StudyConfig c;
  c.grid.models = {ModelKind::mhraf};
  c.grid.n = {4};
  c.grid.d = {8};
  c.grid.heads = {2, 3};
  try {
    check_model_sizes(plan_tasks(c), c);
    FAIL() << "heads = 3 with d = 8 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mhraf: heads = 3 must divide d = 8"), std::string::npos)
        << e.what();
  }
}

// A relative width that rounds below 1 at some grid point is an input error naming the key and
// the point (it was clamped to 1: another model than the one asked for, without a word).
TEST(PlanTasks, AWidthThatRoundsBelowOneIsRefusedNamingTheKey) {
  const auto refusal = [](const StudyConfig& c) {
    try {
      (void)plan_tasks(c);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  StudyConfig c;
  c.grid.models = {ModelKind::rf};
  c.grid.n = {4, 400};
  c.grid.d = {8};
  c.grid.k = parse_k_grid("0.001D", 1 << 30);  // 0.032 at n = 4, 3.2 at n = 400
  EXPECT_EQ(refusal(c),
            "k = '0.001D': round(0.001·n·d) = 0 at n=4, d=8; a width must be at "
            "least 1 (a larger factor, or an integer width)");
  c.grid.n = {400};
  EXPECT_EQ(plan_tasks(c).front().k, 3);
  c.grid.models = {ModelKind::block};
  c.grid.heads = {2};
  c.grid.mlp_width = parse_mlp_width_grid("0.0001d,4d", 1 << 30);
  EXPECT_EQ(refusal(c).rfind("mlp-width = '0.0001d': round(0.0001·d) = 0 at n=400, d=8", 0), 0u)
      << refusal(c);
  c.grid.mlp_width = parse_mlp_width_grid("0.0625d", 1 << 30);  // 0.5 at d = 8: rounds to 1
  EXPECT_EQ(plan_tasks(c).front().k, 1);
}

// A selection names H as `H:`: only the points of that H run, the others keep their streams.
TEST(PlanTasks, ASelectionByHeadsRunsThoseHeadsOnly) {
  StudyConfig c;
  c.grid.models = {ModelKind::raf, ModelKind::mhraf};
  c.grid.n = {4};
  c.grid.d = {8};
  c.grid.heads = {1, 2, 4};
  const auto all = plan_tasks(c);
  c.grid.select = PointSelection::parse("model:mhraf,H:2");
  EXPECT_EQ(c.grid.select.to_string(), "model:mhraf,H:2");
  const auto some = plan_tasks(c);
  ASSERT_EQ(some.size(), c.grid.trials);
  for (const TaskSpec& t : some) {
    EXPECT_EQ(t.heads, 2);
    const auto same = std::find_if(all.begin(), all.end(), [&](const TaskSpec& a) {
      return a.model == t.model && a.heads == t.heads && a.trial == t.trial;
    });
    ASSERT_NE(same, all.end());
    EXPECT_EQ(same->stream_entity, t.stream_entity);
  }
  c.grid.select = PointSelection::parse("model:mhraf,H:8");
  EXPECT_THROW((void)plan_tasks(c), InputError);
}

// A selection names a width as `k:`: block's MLP width or rf's k, the others keep their
// streams; a width no point has matches nothing and is refused.
TEST(PlanTasks, ASelectionByWidthRunsThatWidthOnly) {
  StudyConfig c;
  c.grid.models = {ModelKind::rf, ModelKind::block};
  c.grid.n = {4};
  c.grid.d = {8};
  c.grid.k = parse_k_grid("1D,2D", 1 << 30);                  // 32, 64
  c.grid.mlp_width = parse_mlp_width_grid("2d,4d", 1 << 30);  // 16, 32
  const auto all = plan_tasks(c);
  c.grid.select = PointSelection::parse("k:32");
  EXPECT_EQ(c.grid.select.to_string(), "k:32");
  const auto some = plan_tasks(c);
  ASSERT_EQ(some.size(), 2 * c.grid.trials);  // rf at k = 32 and block at width 32
  for (const TaskSpec& t : some) {
    EXPECT_EQ(t.k, 32) << describe(t);
    const auto same = std::find_if(all.begin(), all.end(), [&](const TaskSpec& a) {
      return a.model == t.model && a.k == t.k && a.trial == t.trial;
    });
    ASSERT_NE(same, all.end());
    EXPECT_EQ(same->stream_entity, t.stream_entity);
  }
  c.grid.select = PointSelection::parse("model:block,k:16");
  EXPECT_EQ(plan_tasks(c).size(), c.grid.trials);
  c.grid.select = PointSelection::parse("model:block,k:64");
  EXPECT_THROW((void)plan_tasks(c), InputError);
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
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tasks, more than 10000000"), std::string::npos) << what;
  }
}

StudyConfig two_models() {
  StudyConfig c;
  c.grid.experiments = {Experiment::ws, Experiment::gen};
  c.grid.models = {ModelKind::rf, ModelKind::raf};
  c.grid.n = {4, 6};
  c.grid.d = {3, 5};
  c.grid.N = {3, 7};
  return c;
}

// (point, trial) → stream entity of a table.
std::map<std::string, std::uint32_t> entities(const std::vector<TaskSpec>& tasks) {
  std::map<std::string, std::uint32_t> out;
  for (const TaskSpec& t : tasks) {
    TaskSpec key = t;
    key.task_id = 0;
    key.point_id = 0;
    EXPECT_TRUE(out.emplace(describe(key), t.stream_entity).second) << describe(key);
  }
  return out;
}

TEST(PlanTasks, TrialsSplitIntoBatchesKeepEveryTasksStreams) {
  StudyConfig whole = two_models();
  whole.grid.trials = 8;
  whole.grid.max_trials = 8;
  const auto at_once = entities(plan_tasks(whole));
  // 3 + 2 + 3 trials, the later batches at some points only: the same entity per trial.
  std::map<std::string, std::uint32_t> batched;
  for (const auto& [first, count, select] :
       std::vector<std::tuple<std::uint32_t, std::uint32_t, std::string>>{
           {0, 3, ""}, {3, 2, "model:raf;model:rf,d:5"}, {5, 3, "experiment:gen,N:7"}}) {
    StudyConfig batch = two_models();
    batch.grid.first_trial = first;
    batch.grid.trials = count;
    batch.grid.max_trials = 8;
    batch.grid.select = PointSelection::parse(select);
    const auto tasks = plan_tasks(batch);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      EXPECT_EQ(tasks[i].task_id, i);  // task ids are the file's own
      EXPECT_GE(tasks[i].trial, first);
      EXPECT_LT(tasks[i].trial, first + count);
      if (!select.empty()) {
        EXPECT_TRUE(batch.grid.select.contains(tasks[i]));
      }
    }
    for (const auto& [key, entity] : entities(tasks)) {
      ASSERT_EQ(at_once.count(key), 1U) << key;
      EXPECT_EQ(at_once.at(key), entity) << key;
      EXPECT_TRUE(batched.emplace(key, entity).second) << key << " planned twice";
    }
  }
  // Distinct entities throughout.
  std::set<std::uint32_t> seen;
  for (const auto& [key, entity] : at_once) EXPECT_TRUE(seen.insert(entity).second) << key;
}

TEST(PlanTasks, ASelectionRunsItsPointsOnly) {
  StudyConfig c = two_models();
  c.grid.select = PointSelection::parse("model:raf,d:5 ; experiment:gen,model:rf,N:3");
  const auto tasks = plan_tasks(c);
  ASSERT_FALSE(tasks.empty());
  std::size_t expected = 0;
  for (const TaskSpec& t : plan_tasks(two_models())) expected += c.grid.select.contains(t) ? 1 : 0;
  EXPECT_EQ(tasks.size(), expected);
  for (const TaskSpec& t : tasks) {
    const bool raf5 = t.model == ModelKind::raf && t.d == 5;
    const bool rf_gen3 = t.model == ModelKind::rf && t.experiment == Experiment::gen && t.N == 3;
    EXPECT_TRUE(raf5 || rf_gen3) << describe(t);
  }
  EXPECT_EQ(tasks.back().point_id + 1, tasks.size() / c.grid.trials);  // points renumbered
}

TEST(PlanTasks, ASelectionSpellingIsCanonical) {
  EXPECT_EQ(PointSelection::parse(" d:5,model:raf;model:raf , d:5;m:2").to_string(),
            "m:2;model:raf,d:5");
}

TEST(PlanTasks, BadExtensionsAreRefusedWithOneLine) {
  const auto refused = [](StudyConfig c, const std::string& words) {
    try {
      (void)plan_tasks(c);
      ADD_FAILURE() << "planned, expected: " << words;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  };
  StudyConfig c = two_models();
  c.grid.first_trial = 3;
  c.grid.trials = 3;
  c.grid.max_trials = 5;
  refused(c, "below first-trial + trials = 6");
  c = two_models();
  c.grid.select = PointSelection::parse("model:raf,d:4");
  refused(c, "matches no grid point");
  for (const char* bad : {"model", "d:x", "q:1", "d:1,d:2", ";", "n:0", "experiment:both"}) {
    EXPECT_THROW((void)PointSelection::parse(bad), InputError) << bad;
  }
  // A model the catalogue does not have is refused as such where the selection is read, not
  // later as a selector that matches no point.
  try {
    (void)PointSelection::parse("model:bert,d:4");
    ADD_FAILURE() << "an unknown model was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "select: 'model:bert,d:4': unknown model 'bert' (models: " + known_model_list() +
                  ") (expected e.g. model:raf,d:384;model:rf,d:768; axes experiment, model, n, "
                  "d, k, N, L, H, m)");
  }
}

}  // namespace
}  // namespace wordsens
