// The limits of the search options (cli/search_options.cpp), enforced in `wordsens run` with a
// one-line InputError naming the option.
#include <gtest/gtest.h>

#include <string>

#include "parse_helper.hpp"

namespace wordsens::cli {
namespace {

using testing::expect_usage_error;
using testing::expect_usage_line;
using testing::option;

TEST(SearchErrors, MaxEvals) {
  // Below 1, beyond an int, or not a number: one message naming the key and the value.
  for (const char* bad : {"0", "-5", "99999999999", "lots"}) {
    expect_usage_line({std::string("--max-evals=") + bad},
                      std::string("max-evals = '") + bad + "': expected an integer in [1, ");
  }
}

TEST(SearchErrors, RelTol) {
  for (const char* bad : {"1", "-0.1", "2", "nan", "tight", "+0.1"}) {
    expect_usage_line({std::string("--rel-tol=") + bad},
                      std::string("rel-tol = '") + bad + "': expected a number in [0, 1)");
  }
}

// Each key names itself, not its neighbours.
TEST(SearchErrors, StartCountsOutOfRange) {
  for (const char* key : {"sphere-starts", "near-origin-starts", "screen-points"}) {
    for (const char* bad : {"-1", "100001"}) {
      expect_usage_line({std::string("--") + key + "=" + bad},
                        std::string(key) + " = '" + bad + "': expected an integer in [0, 100000]");
    }
  }
}

TEST(SearchErrors, NoAscentStart) {
  expect_usage_error({"--guided-start=false", "--sphere-starts=0", "--near-origin-starts=0"},
                     {"no ascent start", "sphere-starts", "near-origin-starts", "guided-start"});
}

TEST(SearchErrors, BudgetCheckFactor) {
  for (const char* bad : {"1", "17", "-1"}) {
    expect_usage_line(
        {std::string("--budget-check=") + bad},
        std::string("budget-check = '") + bad + "': expected 0 (off) or an integer in [2, 16]");
  }
}

TEST(SearchErrors, MinTotalSphereStarts) {
  for (const char* bad : {"many", "-1", "100001", "", "12x", "Auto", "+5", " 5", "5 "}) {
    expect_usage_line(option("min-total-sphere-starts", bad),
                      std::string("min-total-sphere-starts = '") + bad + "'",
                      {"auto or an integer in [0, 100000]"});
  }
}

TEST(SearchErrors, BooleansRefuseOtherWords) {
  expect_usage_line({"--guided-start=maybe"}, "guided-start = 'maybe': expected true or false");
  expect_usage_line({"--upper-bound=2"}, "upper-bound = '2': expected true or false");
}

}  // namespace
}  // namespace wordsens::cli
