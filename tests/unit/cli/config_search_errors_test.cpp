// The limits of the search options (cli/search_options.cpp), enforced in `wordsens run` with a
// one-line UsageError naming the option.
#include <gtest/gtest.h>

#include <string>

#include "parse_helper.hpp"

namespace wordsens::cli {
namespace {

using testing::expect_usage_error;
using testing::option;

TEST(SearchErrors, MaxEvals) {
  expect_usage_error({"--max-evals=0"}, {"max-evals must be at least 1"});
  expect_usage_error({"--max-evals=-5"}, {"max-evals must be at least 1"});
  // Beyond an int, or not a number: boost's message names the option and the value.
  expect_usage_error({"--max-evals=99999999999"}, {"max-evals", "99999999999"});
  expect_usage_error({"--max-evals=lots"}, {"max-evals", "lots"});
}

TEST(SearchErrors, RelTol) {
  for (const char* bad : {"1", "-0.1", "2", "nan"}) {
    expect_usage_error({std::string("--rel-tol=") + bad}, {"rel-tol must be in [0, 1)"});
  }
  expect_usage_error({"--rel-tol=tight"}, {"rel-tol", "tight"});
}

TEST(SearchErrors, StartCountsOutOfRange) {
  for (const char* key : {"sphere-starts", "near-origin-starts", "screen-points"}) {
    for (const char* bad : {"-1", "100001"}) {
      expect_usage_error({std::string("--") + key + "=" + bad}, {key, "must be in 0 .. 100000"});
    }
  }
}

TEST(SearchErrors, NoAscentStart) {
  expect_usage_error({"--guided-start=false", "--sphere-starts=0", "--near-origin-starts=0"},
                     {"no ascent start", "sphere-starts", "near-origin-starts", "guided-start"});
}

TEST(SearchErrors, BudgetCheckFactor) {
  for (const char* bad : {"1", "17", "-1"}) {
    expect_usage_error({std::string("--budget-check=") + bad},
                       {std::string("budget-check = ") + bad, "expected 0 (off) or 2 .. 16"});
  }
}

TEST(SearchErrors, MinTotalSphereStarts) {
  for (const char* bad : {"many", "-1", "100001", "", "12x", "Auto"}) {
    expect_usage_error(
        option("min-total-sphere-starts", bad),
        {std::string("min-total-sphere-starts = '") + bad + "'", "auto or an integer"});
  }
}

TEST(SearchErrors, BooleansRefuseOtherWords) {
  expect_usage_error({"--guided-start=maybe"}, {"guided-start", "maybe"});
  expect_usage_error({"--upper-bound=2"}, {"upper-bound", "'2'"});
}

}  // namespace
}  // namespace wordsens::cli
