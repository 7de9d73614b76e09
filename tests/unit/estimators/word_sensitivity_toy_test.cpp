// The estimator's contract checked against a toy model (tests/unit/estimators/test_models.hpp)
// whose maths is independent of src/models/.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "data/synthetic.hpp"
#include "disc_search.hpp"
#include "estimators/word_sensitivity.hpp"
#include "test_models.hpp"

namespace wordsens {
namespace {

using testing::TanhFeatureMap;

TEST(WordSensitivityToy, WitnessReproducesSFromScratch) {
  const Index n = 6, d = 5;
  for (std::uint32_t task = 0; task < 5; ++task) {
    const TanhFeatureMap model(n, d, 24, 3, task);
    const Matrix X = synthetic_sample(3, n, d, task, 0);
    const WsResult r = estimate_word_sensitivity(model, X, {}, 3, task);
    ASSERT_EQ(r.positions.size(), static_cast<std::size_t>(n));
    ASSERT_EQ(r.witness.size(), d);
    EXPECT_LE(r.witness.norm(), std::sqrt(static_cast<double>(d)) * (1 + 1e-12));
    const double recomputed = sensitivity_at(model, X, r.argmax_position, r.witness);
    EXPECT_NEAR(recomputed, r.S, 1e-9 * r.S) << "task " << task;
    EXPECT_GT(r.evaluations, 0);
    // S is the largest per-position maximum, attained at i*.
    double largest = 0.0;
    for (std::size_t j = 0; j < r.positions.size(); ++j) {
      largest = std::max(largest, r.position_maxima[j]);
      if (r.positions[j] == r.argmax_position) {
        EXPECT_EQ(r.position_maxima[j], r.S);
      }
    }
    EXPECT_EQ(largest, r.S);
    EXPECT_NEAR(r.phi_norm, model.features(X).norm(), 1e-12 * r.phi_norm);
  }
}

TEST(WordSensitivityToy, SNeverExceedsTheUpperBound) {
  int checked = 0;
  for (std::uint32_t task = 0; task < 100; ++task) {
    const Index n = 2 + task % 5, d = 2 + task % 4, p = 4 + 3 * (task % 7);
    const TanhFeatureMap model(n, d, p, 17, task);
    const Matrix X = synthetic_sample(17, n, d, task, 0);
    const WsResult r = estimate_word_sensitivity(model, X, {}, 17, task);
    ASSERT_TRUE(r.S_upper.has_value());
    EXPECT_LE(r.S, *r.S_upper) << "task " << task;
    ++checked;
  }
  EXPECT_EQ(checked, 100);
  WsOptions no_bound;
  no_bound.upper_bound = false;
  const TanhFeatureMap model(3, 2, 5, 1, 0);
  EXPECT_FALSE(
      estimate_word_sensitivity(model, synthetic_sample(1, 3, 2, 0, 0), no_bound, 1, 0).S_upper);
}

TEST(WordSensitivityToy, DiscGridSearchNeverBeatsTheEstimator) {
  for (std::uint32_t task = 0; task < 10; ++task) {
    const Index n = 4 + task % 3;
    const TanhFeatureMap model(n, 2, 20 + 2 * task, 5, task);
    const Matrix X = synthetic_sample(5, n, 2, task, 0);
    const WsResult r = estimate_word_sensitivity(model, X, {}, 5, task);
    const double brute = testing::disc_sensitivity(model, X);
    EXPECT_LE(brute, r.S * (1 + 1e-3)) << "task " << task;
  }
}

TEST(WordSensitivityToy, SameSeedIsBitwiseIdenticalOtherTaskDiffers) {
  const Index n = 5, d = 4;
  const Matrix X = synthetic_sample(8, n, d, 0, 0);
  WsOptions options;
  options.positions = PositionSet::parse("random:3");
  const TanhFeatureMap model(n, d, 16, 8, 2);
  const WsResult a = estimate_word_sensitivity(model, X, options, 8, 2);
  const WsResult b = estimate_word_sensitivity(model, X, options, 8, 2);
  EXPECT_EQ(std::memcmp(&a.S, &b.S, sizeof(double)), 0);
  EXPECT_EQ(a.witness, b.witness);
  EXPECT_EQ(a.evaluations, b.evaluations);
  // Another task id: other weights, other starts, other positions.
  const TanhFeatureMap other(n, d, 16, 8, 3);
  const WsResult c = estimate_word_sensitivity(other, X, options, 8, 3);
  EXPECT_NE(a.S, c.S);
  // Same weights, other task id for the starts only: the starts change.
  const WsResult e = estimate_word_sensitivity(model, X, options, 8, 4);
  EXPECT_NE(a.witness, e.witness);
}

TEST(WordSensitivityToy, PositionsOptionIsHonoured) {
  const Index n = 7, d = 3;
  const TanhFeatureMap model(n, d, 12, 2, 0);
  const Matrix X = synthetic_sample(2, n, d, 0, 0);
  WsOptions first;
  first.positions = PositionSet::parse("first");
  const WsResult r = estimate_word_sensitivity(model, X, first, 2, 0);
  EXPECT_EQ(r.positions, std::vector<Index>{0});
  EXPECT_EQ(r.argmax_position, 0);
  const WsResult all = estimate_word_sensitivity(model, X, {}, 2, 0);
  EXPECT_GE(all.S, r.S * (1 - 1e-12));
}

TEST(WordSensitivityToy, RejectsAMismatchedSample) {
  const TanhFeatureMap model(4, 3, 8, 1, 0);
  EXPECT_THROW((void)estimate_word_sensitivity(model, synthetic_sample(1, 5, 3, 0, 0), {}, 1, 0),
               std::invalid_argument);
  WsOptions none;
  none.sphere_starts = 0;
  none.near_origin_starts = 0;
  none.guided_start = false;
  EXPECT_THROW((void)estimate_word_sensitivity(model, synthetic_sample(1, 4, 3, 0, 0), none, 1, 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace wordsens
