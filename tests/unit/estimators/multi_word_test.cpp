// The estimator of the sensitivity to m changed words: one word is today's estimate bit for
// bit, the witness is certified, S_m ≤ the certified bound, the greedy family never loses the
// best single word, the set families, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "data/synthetic.hpp"
#include "estimators/multi_word.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {
namespace {

std::vector<ModelSpec> all_models(Index n, Index d, Index k) {
  return {{ModelKind::rf, n, d, k, 1, Activation::relu},
          {ModelKind::rf, n, d, k, 1, Activation::tanh},
          {ModelKind::drf, n, d, k, 2, Activation::relu},
          {ModelKind::raf, n, d, 0, 1, Activation::relu},
          {ModelKind::raf_relu, n, d, 0, 1, Activation::relu}};
}

MultiWordOptions options_for(Index words, const std::string& sets) {
  MultiWordOptions o;
  o.words = words;
  o.sets = WordSetFamily::parse(sets);
  o.ws.ascent.max_evaluations = 120;
  return o;
}

bool same_bits(const Vector& a, const Vector& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

TEST(MultiWord, OneWordIsTheSingleWordEstimateBitForBit) {
  const Index n = 6, d = 4;
  const Matrix X = synthetic_sample(4, n, d, 1, 0);
  for (const ModelSpec& spec : all_models(n, d, n * d)) {
    const auto model = make_feature_map(spec, {4, 2});
    for (const auto& [family, positions] : {std::pair<std::string, std::string>{"first", "first"},
                                            {"random:3", "random:3"},
                                            {"greedy", "all"}}) {
      const MultiWordResult many =
          estimate_multi_word_sensitivity(*model, X, options_for(1, family), 4, 2);
      WsOptions ws = options_for(1, family).ws;
      ws.positions = PositionSet::parse(positions);
      const WsResult one = estimate_word_sensitivity(*model, X, ws, 4, 2);
      EXPECT_EQ(std::memcmp(&many.S, &one.S, sizeof(double)), 0)
          << traits(spec.kind).name << " " << family;
      EXPECT_TRUE(same_bits(many.witness, one.witness)) << traits(spec.kind).name << " " << family;
      EXPECT_EQ(many.argmax_set, std::vector<Index>{one.argmax_position});
      EXPECT_EQ(many.evaluations, one.evaluations);
    }
  }
}

TEST(MultiWord, WitnessIsCertifiedAndInsideTheBalls) {
  const Index n = 7, d = 5;
  const Matrix X = synthetic_sample(8, n, d, 0, 0);
  for (const ModelSpec& spec : all_models(n, d, n * d)) {
    const auto model = make_feature_map(spec, {8, 1});
    for (const std::string family : {"first", "random:2", "greedy"}) {
      const MultiWordResult r =
          estimate_multi_word_sensitivity(*model, X, options_for(3, family), 8, 1);
      ASSERT_EQ(r.argmax_set.size(), 3U) << traits(spec.kind).name << " " << family;
      ASSERT_EQ(r.witness.size(), 3 * d);
      for (Index j = 0; j < 3; ++j) {
        EXPECT_LE(r.witness.segment(j * d, d).norm(),
                  std::sqrt(static_cast<double>(d)) * (1 + 1e-12));
      }
      EXPECT_LE(r.cert_rel_err, 1e-9) << traits(spec.kind).name << " " << family;
      EXPECT_NEAR(multi_word_sensitivity_at(*model, X, r.argmax_set, r.witness), r.S, 1e-9 * r.S);
      EXPECT_EQ(r.sets.size(), r.set_maxima.size());
      EXPECT_GE(r.starts, r.starts_at_budget);
      EXPECT_GT(r.evaluations, 0);
      EXPECT_EQ(r.S_upper.has_value(), spec.kind == ModelKind::rf || spec.kind == ModelKind::drf)
          << traits(spec.kind).name;
    }
  }
}

// Greedy starts from the best single word's witness (the new word's block at 0) and ascends
// monotonically, so it never ends below S_1 over all positions; one more changed word only adds.
TEST(MultiWord, GreedyNeverLosesTheBestSingleWord) {
  const Index n = 6, d = 4;
  for (std::uint32_t trial = 0; trial < 3; ++trial) {
    const Matrix X = synthetic_sample(5, n, d, trial, 0);
    for (const ModelSpec& spec : all_models(n, d, n * d)) {
      const auto model = make_feature_map(spec, {5, trial});
      const MultiWordResult one =
          estimate_multi_word_sensitivity(*model, X, options_for(1, "greedy"), 5, trial);
      const MultiWordResult two =
          estimate_multi_word_sensitivity(*model, X, options_for(2, "greedy"), 5, trial);
      EXPECT_GE(two.S, one.S * (1 - 1e-12)) << traits(spec.kind).name << " trial " << trial;
      EXPECT_NE(std::find(two.argmax_set.begin(), two.argmax_set.end(), one.argmax_set.front()),
                two.argmax_set.end())
          << traits(spec.kind).name;
    }
  }
}

// The certified bound over the examined sets is never below the S_m found on them, on 100
// random instances of rf (both activations) and drf.
TEST(MultiWord, SNeverExceedsTheCertifiedBound) {
  int instances = 0;
  for (std::uint32_t task = 0; task < 100; ++task) {
    const Index n = 3 + task % 5, d = 2 + task % 4, m = 2 + task % 2;
    if (m > n) continue;
    const Matrix X = synthetic_sample(31, n, d, task, 0);
    const Activation act = task % 2 == 0 ? Activation::relu : Activation::tanh;
    const ModelSpec spec = task % 3 == 0 ? ModelSpec{ModelKind::drf, n, d, n * d, 2, act}
                                         : ModelSpec{ModelKind::rf, n, d, n * d, 1, act};
    const auto model = make_feature_map(spec, {31, task});
    const MultiWordResult r = estimate_multi_word_sensitivity(
        *model, X, options_for(m, task % 4 == 0 ? "random:2" : "first"), 31, task);
    ASSERT_TRUE(r.S_upper.has_value());
    EXPECT_LE(r.S, *r.S_upper) << traits(spec.kind).name << " task " << task;
    ++instances;
  }
  EXPECT_GE(instances, 100);
}

TEST(MultiWord, SetFamilies) {
  const Index n = 9, d = 3;
  const Matrix X = synthetic_sample(2, n, d, 0, 0);
  const auto model = make_feature_map({ModelKind::raf, n, d, 0, 1, Activation::relu}, {2, 6});
  const MultiWordResult first =
      estimate_multi_word_sensitivity(*model, X, options_for(3, "first"), 2, 6);
  EXPECT_EQ(first.sets, (std::vector<std::vector<Index>>{{0, 1, 2}}));
  const MultiWordResult random =
      estimate_multi_word_sensitivity(*model, X, options_for(3, "random:4"), 2, 6);
  ASSERT_EQ(random.sets.size(), 4U);
  std::set<std::vector<Index>> distinct;
  for (const auto& set : random.sets) {
    ASSERT_EQ(set.size(), 3U);
    EXPECT_TRUE(std::is_sorted(set.begin(), set.end()));
    EXPECT_EQ(std::set<Index>(set.begin(), set.end()).size(), 3U);
    for (const Index i : set) EXPECT_TRUE(i >= 0 && i < n);
    distinct.insert(set);
  }
  EXPECT_GT(distinct.size(), 1U);  // 4 draws of 3 of 9 words: all equal has probability ~1e-5
  const MultiWordResult again =
      estimate_multi_word_sensitivity(*model, X, options_for(3, "random:4"), 2, 6);
  EXPECT_EQ(again.sets, random.sets);
  EXPECT_EQ(again.S, random.S);
  // Greedy examines every completion of its best (m − 1)-set: n − m + 1 sets of m words.
  const MultiWordResult greedy =
      estimate_multi_word_sensitivity(*model, X, options_for(3, "greedy"), 2, 6);
  EXPECT_EQ(greedy.sets.size(), static_cast<std::size_t>(n - 3 + 1));
}

TEST(MultiWord, BadInputIsRefusedWithOneLine) {
  const Index n = 4, d = 3;
  const Matrix X = synthetic_sample(2, n, d, 0, 0);
  const auto model = make_feature_map({ModelKind::rf, n, d, 20, 1, Activation::relu}, {2, 6});
  EXPECT_THROW((void)estimate_multi_word_sensitivity(*model, X, options_for(0, "first"), 2, 6),
               std::invalid_argument);
  EXPECT_THROW((void)estimate_multi_word_sensitivity(*model, X, options_for(5, "first"), 2, 6),
               std::invalid_argument);
  for (const std::string bad : {"all", "random:0", "random:x", "greedy:2", ""}) {
    EXPECT_THROW((void)WordSetFamily::parse(bad), InputError) << bad;
  }
  EXPECT_EQ(WordSetFamily::parse("random:7").to_string(), "random:7");
}

}  // namespace
}  // namespace wordsens
