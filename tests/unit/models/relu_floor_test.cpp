// The floor starts of row-normalised ReLU attention (models/attention/relu_floor.hpp): the move
// leaves exactly one other word with a positive score in the word's row, stays in the ball, gives a
// sensitivity of the order of a word at every n < d, and the search never ends below it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "data/synthetic.hpp"
#include "estimators/word_sensitivity.hpp"
#include "models/attention/attention.hpp"
#include "models/attention/relu_floor.hpp"

namespace wordsens {
namespace {

ModelSpec relu_spec(Index n, Index d) {
  return {ModelKind::raf_relu, n, d, 0, 1, Activation::relu};
}

/// How many of the other words keep a positive score in row `position` once the word moved.
int positive_scores_of_others(const Matrix& X, const Matrix& W, Index position,
                              const Vector& delta) {
  Matrix moved = X;
  moved.row(position) += delta.transpose();
  const Vector row = moved.row(position) * W * moved.transpose();
  int positive = 0;
  for (Index l = 0; l < X.rows(); ++l) positive += (l != position && row(l) > 0.0) ? 1 : 0;
  return positive;
}

/// The largest S over every position's floor starts, each recomputed from scratch.
double best_floor_start(const AttentionFeatures& model, const Matrix& X) {
  double best = 0.0;
  for (Index i = 0; i < X.rows(); ++i) {
    for (const Vector& delta : model.guided_points(X, i)) {
      best = std::max(best, sensitivity_at(model, X, i, delta));
    }
  }
  return best;
}

TEST(ReluFloor, OnlyOneOtherWordKeepsAPositiveScoreAndTheMoveStaysInTheBall) {
  int starts = 0;
  for (const Index n : {2, 5, 17, 40, 63}) {
    const Index d = 64;
    const auto task = static_cast<std::uint32_t>(n);
    const Matrix X = synthetic_sample(5, n, d, task, 0);
    const AttentionFeatures model(relu_spec(n, d), {5, task}, AttentionKind::relu);
    for (Index i = 0; i < n; ++i) {
      const auto points = model.guided_points(X, i);
      EXPECT_EQ(points.size(),
                static_cast<std::size_t>(std::min<Index>(kReluFloorCandidates, n - 1)))
          << "n=" << n << " i=" << i;
      for (const Vector& delta : points) {
        EXPECT_LE(delta.norm(), std::sqrt(static_cast<double>(d)) * (1 + 1e-12));
        EXPECT_EQ(positive_scores_of_others(X, model.W(), i, delta), 1) << "n=" << n;
        ++starts;
      }
    }
  }
  EXPECT_GT(starts, 100);
}

TEST(ReluFloor, NoStartWhereTheConstraintsOutnumberTheDimensions) {
  const Index n = 9, d = 8;  // n − 1 = d: the n − 1 sign constraints need not have a solution
  const Matrix X = synthetic_sample(5, n, d, 1, 0);
  const AttentionFeatures relu(relu_spec(n, d), {5, 1}, AttentionKind::relu);
  EXPECT_TRUE(relu.guided_points(X, 0).empty());
  const AttentionFeatures softmax({ModelKind::raf, 4, 8, 0, 1, Activation::relu}, {5, 1},
                                  AttentionKind::softmax);
  EXPECT_TRUE(softmax.guided_points(synthetic_sample(5, 4, 8, 1, 0), 0).empty());
}

TEST(ReluFloor, TheConstructedMoveKeepsOfTheOrderOfAWordAtEveryNBelowD) {
  // The finding the claim rests on: at d = 64 the best floor start's S stays near or above 1/2
  // for every n < d, where a decaying S would have fallen far below it by n = 63.
  const Index d = 64;
  for (const Index n : {8, 16, 32, 48, 63}) {
    for (std::uint32_t trial = 0; trial < 3; ++trial) {
      const auto task = static_cast<std::uint32_t>(100 * n + trial);
      const Matrix X = synthetic_sample(7, n, d, task, 0);
      const AttentionFeatures model(relu_spec(n, d), {7, task}, AttentionKind::relu);
      EXPECT_GT(best_floor_start(model, X), 0.45) << "n=" << n << " trial=" << trial;
    }
  }
}

TEST(ReluFloor, TheSearchNeverEndsBelowTheConstructedStart) {
  // Random instances, a small budget: S is at least what the floor start alone gives.
  int instances = 0;
  for (std::uint32_t task = 0; task < 12; ++task) {
    const Index n = 3 + 5 * (task % 6), d = 32 + 8 * (task % 3);
    const Matrix X = synthetic_sample(11, n, d, task, 0);
    const AttentionFeatures model(relu_spec(n, d), {11, task}, AttentionKind::relu);
    const double floor = best_floor_start(model, X);
    ASSERT_GT(floor, 0.0) << "n=" << n << " d=" << d;
    WsOptions options;
    options.ascent.max_evaluations = 5;
    options.sphere_starts = 1;
    options.near_origin_starts = 0;
    const WsResult r = estimate_word_sensitivity(model, X, options, 11, task);
    EXPECT_GE(r.S, floor * (1 - 1e-12)) << "n=" << n << " d=" << d;
    ++instances;
  }
  EXPECT_EQ(instances, 12);
}

}  // namespace
}  // namespace wordsens
