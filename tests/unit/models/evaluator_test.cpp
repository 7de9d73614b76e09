// The fast per-position evaluator agrees with φ from scratch (docs/METHOD.md §4), for every model,
// at the first, a middle and the last position, at Δ inside the ball and on its boundary.
#include <gtest/gtest.h>

#include "model_cases.hpp"

namespace wordsens {
namespace {

using testing::ModelCase;

class FastEvaluator : public ::testing::TestWithParam<ModelCase> {};

TEST_P(FastEvaluator, EqualsFeaturesFromScratch) {
  const ModelSpec spec = GetParam().spec;
  const auto model = make_feature_map(spec, {5, 11});
  const Matrix X = testing::test_sample(spec.n, spec.d);
  const Vector phi0 = model->features(X);
  ASSERT_EQ(phi0.size(), model->feature_dim());
  std::mt19937_64 gen(7);
  for (Index position : {Index{0}, spec.n / 2, spec.n - 1}) {
    const auto eval = model->at_position(X, position);
    EXPECT_EQ(eval->position(), position);
    EXPECT_LT(testing::relative_difference(eval->base_features(), phi0), 1e-12);
    for (int point = 0; point < 4; ++point) {
      const Vector delta = testing::ball_point(gen, spec.d, point % 2 == 0);
      Vector fast;
      eval->features_at(delta, fast);
      Matrix Xp = X;
      Xp.row(position) += delta.transpose();
      const Vector scratch = model->features(Xp);
      EXPECT_LT(testing::relative_difference(fast, scratch), 1e-10)
          << GetParam().label << " position " << position;
      // Going back to Δ = 0 gives φ(X) again (the evaluator keeps no stale state).
      eval->features_at(Vector::Zero(spec.d), fast);
      EXPECT_LT(testing::relative_difference(fast, phi0), 1e-12);
    }
  }
}

TEST_P(FastEvaluator, SingleWordText) {
  ModelSpec spec = GetParam().spec;
  spec.n = 1;
  const auto model = make_feature_map(spec, {5, 11});
  const Matrix X = testing::test_sample(1, spec.d);
  const auto eval = model->at_position(X, 0);
  std::mt19937_64 gen(8);
  const Vector delta = testing::ball_point(gen, spec.d, true);
  Vector fast;
  eval->features_at(delta, fast);
  const Matrix Xp = X + delta.transpose();
  EXPECT_LT(testing::relative_difference(fast, model->features(Xp)), 1e-10);
}

INSTANTIATE_TEST_SUITE_P(AllModels, FastEvaluator, ::testing::ValuesIn(testing::all_model_cases()),
                         testing::case_name);

}  // namespace
}  // namespace wordsens
