// The search options `wordsens run` shares with `ws` and `gen` (cli/search_options.hpp) reach
// their StudyConfig fields, at ordinary values and at the ends of their ranges.
#include <gtest/gtest.h>

#include "cli/config.hpp"
#include "parse_helper.hpp"
#include "study/study.hpp"

namespace wordsens::cli {
namespace {

using testing::parse;

TEST(SearchKeys, AscentBudgetAndTolerance) {
  const auto options = parse({"--max-evals=50", "--rel-tol=1e-3"});
  EXPECT_EQ(options.study.search.max_evals, 50);
  EXPECT_EQ(options.study.search.rel_tol, 1e-3);
  EXPECT_EQ(parse({"--max-evals=1"}).study.search.max_evals, 1);
  EXPECT_EQ(parse({"--rel-tol=0"}).study.search.rel_tol, 0.0);
}

TEST(SearchKeys, StartCounts) {
  const auto options =
      parse({"--sphere-starts=5", "--near-origin-starts=3", "--screen-points=100000"});
  EXPECT_EQ(options.study.search.sphere_starts, 5);
  EXPECT_EQ(options.study.search.near_origin_starts, 3);
  EXPECT_EQ(options.study.search.screen_points, 100000);
  EXPECT_EQ(parse({"--screen-points=0"}).study.search.screen_points, 0);
}

TEST(SearchKeys, MinTotalSphereStartsTakesAutoOrACount) {
  EXPECT_EQ(parse({"--min-total-sphere-starts=12"}).study.search.min_total_sphere_starts, 12);
  EXPECT_EQ(parse({"--min-total-sphere-starts=0"}).study.search.min_total_sphere_starts, 0);
  EXPECT_EQ(parse({"--min-total-sphere-starts=100000"}).study.search.min_total_sphere_starts,
            100000);
  EXPECT_EQ(parse({"--min-total-sphere-starts=auto"}).study.search.min_total_sphere_starts, -1);
}

TEST(SearchKeys, BooleansTakeAValue) {
  const auto off = parse({"--guided-start=false", "--upper-bound=false"});
  EXPECT_FALSE(off.study.search.guided_start);
  EXPECT_FALSE(off.study.search.upper_bound);
  // boost's spellings of a boolean
  const auto on = parse({"--guided-start=yes", "--upper-bound=1"});
  EXPECT_TRUE(on.study.search.guided_start);
  EXPECT_TRUE(on.study.search.upper_bound);
}

// Without guided starts an ascent still needs somewhere to start from: one start is enough.
TEST(SearchKeys, OneStartKindSuffices) {
  EXPECT_EQ(parse({"--guided-start=false", "--sphere-starts=0", "--near-origin-starts=1"})
                .study.search.near_origin_starts,
            1);
  EXPECT_EQ(parse({"--guided-start=false", "--sphere-starts=1", "--near-origin-starts=0"})
                .study.search.sphere_starts,
            1);
  EXPECT_EQ(parse({"--sphere-starts=0", "--near-origin-starts=0"}).study.search.sphere_starts, 0);
}

TEST(SearchKeys, BudgetCheckOffOrAFactor) {
  EXPECT_EQ(parse({"--budget-check=2"}).study.search.budget_check, 2);
  EXPECT_EQ(parse({"--budget-check=16"}).study.search.budget_check, kMaxBudgetCheck);
  EXPECT_EQ(parse({"--budget-check=0"}).study.search.budget_check, 0);
}

}  // namespace
}  // namespace wordsens::cli
