// The trained family's own checks (models/trained/trained.hpp) beyond those every model passes
// (model_cases.hpp): the random twin redraws exactly the six matrices at the trained scale, and
// the attention reduces to its closed form where the scores are all equal.
#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.hpp"
#include "data/synthetic.hpp"
#include "models/shared/feature_map.hpp"
#include "models/trained/trained.hpp"
#include "unit/models/test_encoder.hpp"

namespace wordsens {
namespace {

TEST(RandomTwin, RedrawsTheMatricesAtTheirFrobeniusNormAndKeepsTheRest) {
  const auto trained = testing::test_encoder(64, 4, 256);
  const EncoderLayer twin = random_twin(*trained, {3, 9});
  const EncoderLayer again = random_twin(*trained, {3, 9});
  const EncoderLayer other = random_twin(*trained, {3, 10});
  const std::pair<const Matrix EncoderLayer::*, const char*> matrices[] = {
      {&EncoderLayer::WQ, "WQ"}, {&EncoderLayer::WK, "WK"}, {&EncoderLayer::WV, "WV"},
      {&EncoderLayer::WO, "WO"}, {&EncoderLayer::W1, "W1"}, {&EncoderLayer::W2, "W2"}};
  for (const auto& [member, name] : matrices) {
    const Matrix& W = *trained.*member;
    const Matrix& G = twin.*member;
    ASSERT_EQ(G.rows(), W.rows()) << name;
    ASSERT_EQ(G.cols(), W.cols()) << name;
    // E‖G‖²_F = ‖W‖²_F: ‖G‖²_F/σ² is χ² with N = rows·cols degrees of freedom, so ‖G‖_F/‖W‖_F
    // has standard deviation about 1/√(2N) (0.011 at N = 4096); 6 of them.
    const double sd = 1.0 / std::sqrt(2.0 * static_cast<double>(W.size()));
    EXPECT_NEAR(G.norm() / W.norm(), 1.0, 6.0 * sd) << name;
    EXPECT_GT((G - W).norm(), W.norm()) << name << ": not redrawn";
    EXPECT_EQ(G, again.*member) << name << ": not a function of the key";
    EXPECT_GT((G - other.*member).norm(), W.norm()) << name << ": the same for another task";
    // Entries centred, of one variance: the mean well inside 4 standard errors.
    EXPECT_LT(std::abs(G.mean()), 4.0 * G.norm() / static_cast<double>(G.size())) << name;
  }
  EXPECT_EQ(twin.bQ, trained->bQ);
  EXPECT_EQ(twin.bO, trained->bO);
  EXPECT_EQ(twin.b1, trained->b1);
  EXPECT_EQ(twin.b2, trained->b2);
  EXPECT_EQ(twin.input.gamma, trained->input.gamma);
  EXPECT_EQ(twin.norm1.beta, trained->norm1.beta);
  EXPECT_EQ(twin.norm2.gamma, trained->norm2.gamma);
  EXPECT_EQ(twin.heads, trained->heads);
  EXPECT_EQ(twin.epsilon, trained->epsilon);
}

TEST(TrainedAttention, EqualScoresAverageTheValues) {
  // W_Q = W_K = 0 and b_Q = 0: every score is 0, each row attends to every word alike, so
  // every row of φ is (mean_j x_j W_V + b_V) W_O + b_O with x_j = γ₀ ⊙ u_j + β₀.
  auto layer = std::make_shared<EncoderLayer>(*testing::test_encoder(6, 3, 12));
  layer->WQ.setZero();
  layer->WK.setZero();
  layer->bQ.setZero();
  const Index n = 5, d = 6;
  ModelSpec spec{ModelKind::trained_attn, n, d, 0, 1, Activation::relu};
  spec.encoder = layer;
  const Matrix U = synthetic_sample(4, n, d, 0, 0);
  Matrix X = U;
  X.array().rowwise() *= layer->input.gamma.array();
  X.rowwise() += layer->input.beta;
  const RowVector row = (X.colwise().mean() * layer->WV + layer->bV) * layer->WO + layer->bO;
  const Vector phi = make_feature_map(spec, {1, 0})->features(U);
  for (Index j = 0; j < n; ++j) {
    EXPECT_LT((phi.segment(j * d, d).transpose() - row).norm(), 1e-12 * row.norm()) << j;
  }
}

TEST(TrainedModels, TakeTheEncodersWidthOnly) {
  ModelSpec spec{ModelKind::trained_layer, 4, 5, 0, 1, Activation::relu};
  EXPECT_THROW((void)make_feature_map(spec, {1, 0}), InputError);  // no encoder
  spec.encoder = testing::test_encoder(6, 2, 12);
  EXPECT_THROW((void)make_feature_map(spec, {1, 0}), InputError);  // d = 5, the encoder's 6
  EXPECT_TRUE(model_size_problem(spec).has_value());
  spec.d = 6;
  EXPECT_FALSE(model_size_problem(spec).has_value());
  spec.mask = AttentionMask::causal;
  EXPECT_NE(model_size_problem(spec).value_or("").find("both ways"), std::string::npos);
}

}  // namespace
}  // namespace wordsens
