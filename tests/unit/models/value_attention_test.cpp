// raf_v (models/attention/value_attention.hpp): raf with random value and output projections.
#include <gtest/gtest.h>

#include "model_cases.hpp"
#include "models/attention/attention.hpp"
#include "models/attention/value_attention.hpp"

namespace wordsens {
namespace {

ModelSpec raf_v_spec(Index n, Index d) { return {ModelKind::raf_v, n, d, 0, 1, Activation::relu}; }

// With identity projections raf_v is the paper's raf, bit for bit where nothing is projected and
// to rounding where the identity product is taken: the same W (weight matrix 0 of the task).
TEST(ValueAttention, WithIdentityProjectionsIsRaf) {
  const Index n = 6, d = 5;
  const WeightKey key{7, 3};
  const ModelSpec spec = raf_v_spec(n, d);
  const ValueAttentionFeatures raf_v(spec, key, Matrix::Identity(d, d), Matrix::Identity(d, d));
  const auto raf = make_feature_map({ModelKind::raf, n, d, 0, 1, Activation::relu}, key);
  const Matrix X = testing::test_sample(n, d);
  EXPECT_EQ(raf_v.features(X), raf->features(X));
  std::mt19937_64 gen(5);
  for (Index position : {Index{0}, n - 1}) {
    const auto ours = raf_v.at_position(X, position);
    const auto theirs = raf->at_position(X, position);
    const Vector delta = testing::ball_point(gen, d, true);
    const Vector c = testing::gaussian_vector(gen, n * d);
    Vector phi_ours, phi_theirs, grad_ours, grad_theirs;
    ours->features_at(delta, phi_ours);
    theirs->features_at(delta, phi_theirs);
    EXPECT_EQ(phi_ours, phi_theirs);
    ours->pullback(c, grad_ours);
    theirs->pullback(c, grad_theirs);
    EXPECT_EQ(grad_ours, grad_theirs);
  }
}

// The plain computation, written here from the definition: vec(softmax(X W Xᵀ/√d) X W_V W_O)
// with W, W_V, W_O the task's weight matrices 0, 1, 2.
TEST(ValueAttention, FeaturesAreTheDefinitionWithTheTasksMatrices) {
  const Index n = 7, d = 4;
  const WeightKey key{11, 2};
  const auto model = make_feature_map(raf_v_spec(n, d), key);
  const auto weights = model->stored_weights(1000);
  ASSERT_EQ(weights.size(), 3U);
  EXPECT_EQ(weights[0].name, "W");
  EXPECT_EQ(weights[1].name, "WV");
  EXPECT_EQ(weights[2].name, "WO");
  // W is raf's matrix of the same task.
  const auto raf = make_feature_map({ModelKind::raf, n, d, 0, 1, Activation::relu}, key);
  EXPECT_EQ(weights[0].values, raf->stored_weights(1000)[0].values);
  const Matrix X = testing::test_sample(n, d);
  const Matrix S = X * weights[0].values * X.transpose() / std::sqrt(static_cast<double>(d));
  Matrix A(n, n);
  for (Index j = 0; j < n; ++j) {
    A.row(j) = (S.row(j).array() - S.row(j).maxCoeff()).exp().matrix();
    A.row(j) /= A.row(j).sum();
  }
  const Matrix Y = A * X * weights[1].values * weights[2].values;
  const Vector expected = vec(Y);
  EXPECT_LT(testing::relative_difference(model->features(X), expected), 1e-13);
  // All or none of the three above the limit.
  EXPECT_TRUE(model->stored_weights(3 * d * d - 1).empty());
}

// Each projection keeps a row's norm in expectation (entries N(0, 1/d)), so φ has raf's scale:
// at d = 64 the ratio of the norms is within 1 ± 4/√d of 1 in every task.
TEST(ValueAttention, HasRafsScale) {
  const Index n = 8, d = 64;
  const Matrix X = testing::test_sample(n, d);
  for (std::uint32_t task = 0; task < 5; ++task) {
    const auto raf_v = make_feature_map(raf_v_spec(n, d), {3, task});
    const auto raf = make_feature_map({ModelKind::raf, n, d, 0, 1, Activation::relu}, {3, task});
    EXPECT_NEAR(raf_v->features(X).norm() / raf->features(X).norm(), 1.0, 0.5) << task;
  }
}

}  // namespace
}  // namespace wordsens
