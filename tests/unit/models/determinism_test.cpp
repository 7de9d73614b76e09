// Weights are a pure function of the key (docs/METHOD.md §9): the same key gives bitwise identical
// φ, a different task id gives different weights; the sizes each model takes are validated.
#include <gtest/gtest.h>

#include <cstring>

#include "core/errors.hpp"
#include "model_cases.hpp"
#include "models/drf/drf.hpp"

namespace wordsens {
namespace {

using testing::ModelCase;

bool bitwise_equal(const Vector& a, const Vector& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

class Determinism : public ::testing::TestWithParam<ModelCase> {};

TEST_P(Determinism, SameKeySameBitsOtherTaskOtherWeights) {
  const ModelSpec spec = GetParam().spec;
  const Matrix X = testing::test_sample(spec.n, spec.d);
  const Vector a = make_feature_map(spec, {1, 2})->features(X);
  const Vector b = make_feature_map(spec, {1, 2})->features(X);
  const Vector other_task = make_feature_map(spec, {1, 3})->features(X);
  const Vector other_seed = make_feature_map(spec, {2, 2})->features(X);
  EXPECT_TRUE(bitwise_equal(a, b));
  // A pretrained encoder's layer has its weights whatever the key; its twin draws them.
  if (spec.kind == ModelKind::trained_attn || spec.kind == ModelKind::trained_layer) {
    EXPECT_TRUE(bitwise_equal(other_task, a));
    EXPECT_TRUE(bitwise_equal(other_seed, a));
    return;
  }
  EXPECT_GT(testing::relative_difference(other_task, a), 1e-3);
  EXPECT_GT(testing::relative_difference(other_seed, a), 1e-3);
}

INSTANTIATE_TEST_SUITE_P(AllModels, Determinism, ::testing::ValuesIn(testing::all_model_cases()),
                         testing::case_name);

// The paper's four models, first and in this order (the canonical order of studies and files);
// a model added to the catalogue comes after them.
TEST(Registry, KnowsThePapersModelsFirst) {
  const auto& names = model_names();
  ASSERT_GE(names.size(), 4U);
  EXPECT_EQ(names[0], "rf");
  EXPECT_EQ(names[1], "drf");
  EXPECT_EQ(names[2], "raf");
  EXPECT_EQ(names[3], "raf_relu");
  for (const auto& c : testing::all_model_cases()) {
    const auto model = make_feature_map(c.spec, {1, 1});
    EXPECT_EQ(model->spec().kind, c.spec.kind);
    EXPECT_EQ(model->feature_dim(), traits(c.spec.kind).attention ? c.spec.n * c.spec.d : c.spec.k);
  }
}

void expect_rejected(const ModelSpec& spec, const std::string& fragment) {
  try {
    (void)make_feature_map(spec, {1, 1});
    ADD_FAILURE() << "accepted " << traits(spec.kind).name;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Registry, RejectsBadNamesAndSizes) {
  EXPECT_THROW((void)model_kind("transformer"), InputError);  // a name is checked where it is read
  expect_rejected({ModelKind::rf, 0, 4, 10, 1, Activation::relu}, "n must be >= 1");
  expect_rejected({ModelKind::raf, 5, 0, 0, 1, Activation::relu}, "d must be >= 1");
  expect_rejected({ModelKind::rf, 5, 4, 0, 1, Activation::relu}, "k must be >= 1");
  expect_rejected({ModelKind::drf, 5, 4, 10, 0, Activation::relu}, "layers must be >= 1");
  // 8·(k·D + (L−1)·k²) with k = D = 40000: 8·(1.6e9 + 1.6e9) bytes ≈ 24 GiB > 8 GiB.
  const ModelSpec huge{ModelKind::drf, 200, 200, 40000, 2, Activation::relu};
  EXPECT_GT(DeepRandomFeatures::weight_bytes(huge), DeepRandomFeatures::kMaxWeightBytes);
  expect_rejected(huge, "GiB limit");
  // rf never stores V: the same sizes are accepted (nothing is generated until used).
  EXPECT_NO_THROW(
      (void)make_feature_map({ModelKind::rf, 200, 200, 40000, 1, Activation::relu}, {1, 1}));
}

// What `wordsens run` checks for every task before it starts: the model says when a size can
// never be built, in a line naming the point.
TEST(Registry, SaysWhichSizesCannotBeBuilt) {
  const ModelSpec huge{ModelKind::drf, 200, 768, 40000, 3, Activation::relu};
  const auto problem = model_size_problem(huge);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(*problem, "drf at n=200, d=768, k=40000, L=3 needs more than 8 GiB of weights");
  EXPECT_FALSE(model_size_problem({ModelKind::drf, 20, 64, 512, 3, Activation::relu}).has_value());
  for (const char* name : {"rf", "raf", "raf_relu"}) {
    EXPECT_FALSE(
        model_size_problem({model_kind(name), 200, 768, 40000, 1, Activation::relu}).has_value())
        << name;
  }
}

TEST(Registry, RejectsSamplesOfTheWrongShape) {
  for (const auto& c : testing::all_model_cases()) {
    const auto model = make_feature_map(c.spec, {1, 1});
    const Matrix X = testing::test_sample(c.spec.n + 1, c.spec.d);
    EXPECT_THROW((void)model->features(X), std::invalid_argument) << c.label;
    EXPECT_THROW((void)model->at_position(X, 0), std::invalid_argument) << c.label;
  }
}

}  // namespace
}  // namespace wordsens
