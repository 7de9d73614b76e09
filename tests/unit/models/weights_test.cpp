// Each model draws the weights docs/METHOD.md §2 and §9 prescribe: stream `weights`,
// entity = task id; rf: matrix 0 is V (N(0, 1/D)); drf: matrix l − 1 is V_l (N(0, 2/D) for V_1,
// N(0, 2/k) after); raf: matrix 0 is W (N(0, 1/d)).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/gaussian.hpp"
#include "model_cases.hpp"
#include "models/attention/attention.hpp"
#include "models/drf/drf.hpp"
#include "models/rf/rf.hpp"
#include "models/rf/rf_marginal.hpp"

namespace wordsens {
namespace {

GaussianMatrix expected(WeightKey key, std::uint32_t matrix, double variance) {
  return GaussianMatrix({Philox(key.master_seed, Stream::weights), key.task_id, matrix},
                        std::sqrt(variance));
}

TEST(Weights, RfDrawsMatrixZeroWithVarianceOneOverD) {
  const WeightKey key{12, 34};
  const Index n = 3, d = 4, k = 9, D = n * d;
  const RandomFeatures model({ModelKind::rf, n, d, k, 1, Activation::relu}, key);
  EXPECT_EQ(model.weights().window(0, 0, k, D), expected(key, 0, 1.0 / D).window(0, 0, k, D));
}

TEST(Weights, DrfLayersAreMatricesZeroToLMinusOne) {
  const WeightKey key{12, 34};
  const Index n = 3, d = 4, k = 9, D = n * d;
  const DeepRandomFeatures model({ModelKind::drf, n, d, k, 3, Activation::relu}, key);
  ASSERT_EQ(model.layers().size(), 3U);
  EXPECT_EQ(model.layers()[0], expected(key, 0, 2.0 / D).window(0, 0, k, D));
  EXPECT_EQ(model.layers()[1], expected(key, 1, 2.0 / k).window(0, 0, k, k));
  EXPECT_EQ(model.layers()[2], expected(key, 2, 2.0 / k).window(0, 0, k, k));
  EXPECT_DOUBLE_EQ(DeepRandomFeatures::weight_bytes(model.spec()), 8.0 * (k * D + 2 * k * k));
}

TEST(Weights, AttentionDrawsMatrixZeroWithVarianceOneOverLittleD) {
  const WeightKey key{12, 34};
  const Index d = 6;
  const AttentionFeatures model({ModelKind::raf, 4, d, 0, 1, Activation::relu}, key,
                                AttentionKind::softmax);
  EXPECT_EQ(model.W(), expected(key, 0, 1.0 / d).window(0, 0, d, d));
}

TEST(Weights, EmpiricalVarianceMatches) {
  // 200 × 300 entries of rf's V: the sample variance is 1/D within a few standard errors.
  const Index n = 10, d = 30, k = 200, D = n * d;
  const RandomFeatures model({ModelKind::rf, n, d, k, 1, Activation::relu}, {1, 1});
  const Matrix V = model.weights().window(0, 0, k, D);
  const double variance = V.squaredNorm() / static_cast<double>(V.size());
  const double se = std::sqrt(2.0 / static_cast<double>(V.size())) / D;
  EXPECT_NEAR(variance, 1.0 / D, 5 * se);
}

// What --save-witness stores: each model names the matrices it drew, in the order drawn, and
// stores them all or none.
TEST(StoredWeights, AreTheDrawnMatricesUnderTheirNames) {
  const WeightKey key{12, 34};
  const Index n = 3, d = 4, k = 9, D = n * d;
  const RandomFeatures rf({ModelKind::rf, n, d, k, 1, Activation::relu}, key);
  const auto rf_weights = rf.stored_weights(k * D);
  ASSERT_EQ(rf_weights.size(), 1U);
  EXPECT_EQ(rf_weights[0].name, "V");
  EXPECT_EQ(rf_weights[0].values, rf.weights().window(0, 0, k, D));

  const DeepRandomFeatures drf({ModelKind::drf, n, d, k, 3, Activation::relu}, key);
  const auto drf_weights = drf.stored_weights(k * D + 2 * k * k);
  ASSERT_EQ(drf_weights.size(), 3U);
  for (std::size_t l = 0; l < 3; ++l) {
    EXPECT_EQ(drf_weights[l].name, "V" + std::to_string(l + 1));
    EXPECT_EQ(drf_weights[l].values, drf.layers()[l]);
  }

  const AttentionFeatures raf({ModelKind::raf, n, d, 0, 1, Activation::relu}, key,
                              AttentionKind::relu);
  const auto raf_weights = raf.stored_weights(d * d);
  ASSERT_EQ(raf_weights.size(), 1U);
  EXPECT_EQ(raf_weights[0].name, "W");
  EXPECT_EQ(raf_weights[0].values, raf.W());
}

class StoredWeightsOfEveryModel : public ::testing::TestWithParam<testing::ModelCase> {};

TEST_P(StoredWeightsOfEveryModel, AllOrNoneAtTheLimit) {
  const auto model = make_feature_map(GetParam().spec, {5, 6});
  const auto all = model->stored_weights(std::numeric_limits<Index>::max());
  ASSERT_FALSE(all.empty()) << "a model that stores no weights for its witness";
  Index total = 0;
  for (const auto& w : all) total += w.values.size();
  EXPECT_EQ(model->stored_weights(total).size(), all.size());
  EXPECT_TRUE(model->stored_weights(total - 1).empty());
}

INSTANTIATE_TEST_SUITE_P(Models, StoredWeightsOfEveryModel,
                         ::testing::ValuesIn(testing::all_model_cases()), testing::case_name);

// The marginal sampler never draws V: nothing it holds determines another text's features.
TEST(StoredWeights, MarginalSamplerStoresNone) {
  const Index n = 5, d = 3, k = 20;
  ModelSpec spec{ModelKind::rf, n, d, k, 1, Activation::relu};
  spec.sampling = RfSampling::marginal;
  const std::vector<Index> positions{0, 2};
  const auto model = make_feature_map(spec, {5, 6}, positions);
  EXPECT_TRUE(model->stored_weights(std::numeric_limits<Index>::max()).empty());
}

}  // namespace
}  // namespace wordsens
