// The race of the word-sensitivity search (WsOptions::race_evaluations): every ascent climbs to
// the cut, then only the survivors go on. What it may and may not change, on raf and raf_relu
// over all positions: it finds at least what the search stopped at the cut finds, never more than
// the unraced search, with fewer evaluations.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "data/synthetic.hpp"
#include "estimators/word_sensitivity.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {
namespace {

constexpr Index kN = 40, kD = 24;  // d above the polish's 16: a race applies
constexpr int kBudget = 150, kCut = 10, kSurvivors = 16;

WsOptions unraced(int budget = kBudget) {
  WsOptions options;
  options.ascent.max_evaluations = budget;
  return options;
}

WsOptions raced() {
  WsOptions options = unraced();
  options.race_evaluations = kCut;
  options.race_survivors = kSurvivors;
  return options;
}

struct Case {
  std::string model;
  std::uint32_t task;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const std::string model : {"raf", "raf_relu"}) {
    for (std::uint32_t task = 0; task < 4; ++task) out.push_back({model, task});
  }
  return out;
}

WsResult estimate(const Case& c, const WsOptions& options) {
  const Matrix X = synthetic_sample(5, kN, kD, c.task, 0);
  const auto model = make_feature_map({model_kind(c.model), kN, kD, 0}, {5, c.task});
  return estimate_word_sensitivity(*model, X, options, 5, c.task);
}

TEST(WsRace, AppliesOnlyWhereTheStartsOutnumberTheSurvivors) {
  WsOptions options = raced();
  EXPECT_TRUE(search_races(options, ModelKind::raf, kN, kD));
  // One position: 32 sphere starts (the minimum total), a near-origin and two guided ones.
  EXPECT_TRUE(search_races(options, ModelKind::raf, 1, kD));
  options.race_survivors = 35;
  EXPECT_FALSE(search_races(options, ModelKind::raf, 1, kD));
  options.race_survivors = 34;
  EXPECT_TRUE(search_races(options, ModelKind::raf, 1, kD));
  options = raced();
  EXPECT_FALSE(search_races(options, ModelKind::raf, kN, 16)) << "the polish needs every best";
  options.race_survivors = 100000;
  EXPECT_FALSE(search_races(options, ModelKind::raf, kN, kD));
  options = raced();
  options.race_evaluations = 0;
  EXPECT_FALSE(search_races(options, ModelKind::raf, kN, kD));
  options.race_evaluations = kBudget;  // no shorter than the budget: nothing to cut
  EXPECT_FALSE(search_races(options, ModelKind::raf, kN, kD));
}

// Everything the search stopped at the cut finds, the race finds: its first leg is that search,
// step for step, and the survivors only climb further.
TEST(WsRace, FindsAtLeastWhatTheSearchStoppedAtTheCutFinds) {
  for (const Case& c : cases()) {
    const WsResult race = estimate(c, raced());
    const WsResult cut = estimate(c, unraced(kCut));
    EXPECT_GE(race.S, cut.S) << c.model << " task " << c.task;
    ASSERT_EQ(race.position_maxima.size(), cut.position_maxima.size());
    for (std::size_t q = 0; q < race.position_maxima.size(); ++q) {
      EXPECT_GE(race.position_maxima[q], cut.position_maxima[q])
          << c.model << " task " << c.task << " position " << q;
    }
    EXPECT_EQ(race.starts, cut.starts);
  }
}

// Nothing the unraced search does not find: the survivors take its steps (up to the last bits of
// f, in other rounds) and the others stop early. And the race saves evaluations: only the
// survivors may run to the budget.
TEST(WsRace, NeverExceedsTheUnracedSearchAndCostsLess) {
  for (const Case& c : cases()) {
    const WsResult race = estimate(c, raced());
    const WsResult plain = estimate(c, unraced());
    EXPECT_LE(race.S, plain.S * (1.0 + 1e-12)) << c.model << " task " << c.task;
    for (std::size_t q = 0; q < race.position_maxima.size(); ++q) {
      EXPECT_LE(race.position_maxima[q], plain.position_maxima[q] * (1.0 + 1e-12))
          << c.model << " task " << c.task << " position " << q;
    }
    EXPECT_LT(race.evaluations, plain.evaluations) << c.model << " task " << c.task;
    EXPECT_LE(race.starts_at_budget, kSurvivors);
    EXPECT_EQ(race.starts, plain.starts);
    EXPECT_LE(race.cert_rel_err, kCertificationTolerance);
    EXPECT_TRUE(race.stationarity >= 0.0);
  }
}

TEST(WsRace, IsAPureFunctionOfTheTask) {
  const Case c{"raf_relu", 2};
  const WsResult a = estimate(c, raced());
  const WsResult b = estimate(c, raced());
  EXPECT_EQ(std::memcmp(&a.S, &b.S, sizeof(double)), 0);
  EXPECT_EQ(a.witness, b.witness);
  EXPECT_EQ(a.evaluations, b.evaluations);
  EXPECT_EQ(a.position_maxima, b.position_maxima);
}

// The budget check of a raced search races too, with f times the survivors and the cut, and
// keeps its contract: a superset of the plain search's points, so S_budget_check ≥ S.
TEST(WsRace, TheBudgetCheckOfARacedSearchFindsAtLeastItsS) {
  for (const Case& c : cases()) {
    const Matrix X = synthetic_sample(5, kN, kD, c.task, 0);
    const auto model = make_feature_map({model_kind(c.model), kN, kD, 0}, {5, c.task});
    const WsResult plain = estimate_word_sensitivity(*model, X, raced(), 5, c.task);
    const WsResult check = recheck_with_more_budget(*model, X, raced(), 2, plain, 5, c.task);
    EXPECT_GE(check.S, plain.S) << c.model << " task " << c.task;
    EXPECT_GT(check.evaluations, plain.evaluations);
  }
}

}  // namespace
}  // namespace wordsens
