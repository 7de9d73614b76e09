#include "estimators/positions.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "core/errors.hpp"

namespace wordsens {
namespace {

TEST(PositionSet, ParseAndPrintRoundTrip) {
  for (const std::string text : {"all", "first", "random:1", "random:17"}) {
    EXPECT_EQ(PositionSet::parse(text).to_string(), text);
  }
  EXPECT_EQ(PositionSet::parse("random:5").kind, PositionSet::Kind::random);
  EXPECT_EQ(PositionSet::parse("random:5").count, 5);
  EXPECT_EQ(PositionSet{}.to_string(), "all");
}

TEST(PositionSet, RejectsMalformedText) {
  for (const std::string text : {"", "All", "last", "random", "random:", "random:0", "random:-2",
                                 "random:3x", "random: 3", "random:1.5", "first "}) {
    EXPECT_THROW((void)PositionSet::parse(text), InputError) << "'" << text << "'";
  }
}

TEST(PositionSet, AllAndFirst) {
  EXPECT_EQ(PositionSet::parse("all").resolve(4, 1, 0), (std::vector<Index>{0, 1, 2, 3}));
  EXPECT_EQ(PositionSet::parse("first").resolve(4, 1, 0), (std::vector<Index>{0}));
  EXPECT_EQ(PositionSet::parse("random:9").resolve(4, 1, 0), (std::vector<Index>{0, 1, 2, 3}));
  EXPECT_THROW((void)PositionSet::parse("all").resolve(0, 1, 0), std::invalid_argument);
}

TEST(PositionSet, RandomIsSortedDistinctDeterministicAndDependsOnTheTask) {
  const PositionSet set = PositionSet::parse("random:5");
  const auto a = set.resolve(40, 7, 3);
  ASSERT_EQ(a.size(), 5u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_EQ(std::set<Index>(a.begin(), a.end()).size(), 5u);
  for (const Index i : a) {
    EXPECT_GE(i, 0);
    EXPECT_LT(i, 40);
  }
  EXPECT_EQ(a, set.resolve(40, 7, 3));
  EXPECT_NE(a, set.resolve(40, 7, 4));
  EXPECT_NE(a, set.resolve(40, 8, 3));
}

TEST(PositionSet, RandomSubsetsAreRoughlyUniform) {
  // Each of n positions should be picked with probability m/n; over T tasks the count is
  // Binomial(T, m/n): mean 600, sd ≈ 22.6. A 6-sd band never fails by chance in practice.
  const Index n = 10, m = 3;
  const int tasks = 2000;
  std::vector<int> hits(n, 0);
  const PositionSet set = PositionSet::parse("random:3");
  for (int t = 0; t < tasks; ++t) {
    for (const Index i : set.resolve(n, 11, static_cast<std::uint32_t>(t))) ++hits[i];
  }
  const double mean = tasks * static_cast<double>(m) / static_cast<double>(n);
  for (Index i = 0; i < n; ++i) EXPECT_NEAR(hits[i], mean, 6 * 22.6) << "position " << i;
}

}  // namespace
}  // namespace wordsens
