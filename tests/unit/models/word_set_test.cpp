// The evaluators of several changed words (FeatureMap::at_word_set) against the plain
// computation: f(Δ) = ‖φ(X^M(Δ)) − φ(X)‖² from scratch, ∇f against central differences, one word
// against the single-position evaluator; the word-set bounds of rf and drf against f.
#include <gtest/gtest.h>

#include "model_cases.hpp"

namespace wordsens {
namespace {

using testing::ModelCase;

double from_scratch(const FeatureMap& model, const Matrix& X, const std::vector<Index>& set,
                    const Vector& delta) {
  const Index d = X.cols();
  Matrix changed = X;
  for (std::size_t j = 0; j < set.size(); ++j) {
    changed.row(set[j]) += delta.segment(static_cast<Index>(j) * d, d).transpose();
  }
  return (model.features(changed) - model.features(X)).squaredNorm();
}

/// A point of the product of m balls of radius √d (blocks on the sphere or inside).
Vector product_ball_point(std::mt19937_64& gen, Index d, Index m) {
  Vector delta(m * d);
  for (Index j = 0; j < m; ++j) delta.segment(j * d, d) = testing::ball_point(gen, d, j % 2 == 0);
  return delta;
}

class WordSet : public ::testing::TestWithParam<ModelCase> {};

TEST_P(WordSet, ValuesAreThePlainComputation) {
  const ModelSpec spec = GetParam().spec;
  const auto model = make_feature_map(spec, {5, 11});
  const Matrix X = testing::test_sample(spec.n, spec.d);
  std::mt19937_64 gen(3);
  // Positions out of order and one at each end: the gradient blocks follow the given order.
  const std::vector<Index> set = {spec.n - 1, 0, spec.n / 2};
  const auto eval = model->at_word_set(X, set);
  EXPECT_LT(testing::relative_difference(eval->base_features(), model->features(X)), 1e-13);
  Matrix deltas(3 * spec.d, 4);
  for (Index b = 0; b < 4; ++b) deltas.col(b) = product_ball_point(gen, spec.d, 3);
  deltas.col(3).setZero();
  Vector values, values_only;
  Matrix grads;
  eval->sensitivity_objective(deltas, values, &grads);
  eval->sensitivity_objective(deltas, values_only, nullptr);
  ASSERT_EQ(grads.rows(), 3 * spec.d);
  for (Index b = 0; b < 4; ++b) {
    const double plain = from_scratch(*model, X, set, deltas.col(b));
    const double scale = std::max(plain, 1e-12 * model->features(X).squaredNorm());
    EXPECT_LE(std::abs(values(b) - plain), 1e-11 * scale) << GetParam().label << " point " << b;
    EXPECT_EQ(values(b), values_only(b));
  }
  // Δ = 0: no change (attention recomputes φ, so rounding may leave ~1e-31).
  EXPECT_LE(values(3), 1e-24 * eval->base_features().squaredNorm()) << GetParam().label;
}

TEST_P(WordSet, GradientMatchesCentralDifferences) {
  const ModelSpec spec = GetParam().spec;
  const auto model = make_feature_map(spec, {17, 4});
  const Matrix X = testing::test_sample(spec.n, spec.d);
  std::mt19937_64 gen(77);
  const std::vector<Index> set = {1, spec.n - 1};
  const auto eval = model->at_word_set(X, set);
  constexpr double kStep = 1e-5;
  for (int trial = 0; trial < 3; ++trial) {
    const Vector delta = product_ball_point(gen, spec.d, 2);
    Vector value;
    Matrix grad;
    eval->sensitivity_objective(delta, value, &grad);
    Vector numeric(delta.size());
    for (Index c = 0; c < delta.size(); ++c) {
      Matrix plus = delta, minus = delta;
      plus(c, 0) += kStep;
      minus(c, 0) -= kStep;
      Vector fp, fm;
      eval->sensitivity_objective(plus, fp, nullptr);
      eval->sensitivity_objective(minus, fm, nullptr);
      numeric(c) = (fp(0) - fm(0)) / (2.0 * kStep);
    }
    // ReLU kinks can sit between the two difference points: a loose but discriminating bound
    // (a wrong block order or a missing term is off by O(1)).
    EXPECT_LT(testing::relative_difference(grad.col(0), numeric), 1e-4)
        << GetParam().label << " trial " << trial;
  }
}

TEST_P(WordSet, OneWordIsThePositionEvaluator) {
  const ModelSpec spec = GetParam().spec;
  const auto model = make_feature_map(spec, {2, 9});
  const Matrix X = testing::test_sample(spec.n, spec.d);
  std::mt19937_64 gen(5);
  const Index position = spec.n / 2;
  const auto word_set = model->at_word_set(X, std::vector<Index>{position});
  const auto single = model->at_position(X, position);
  Matrix deltas(spec.d, 3);
  for (Index b = 0; b < 3; ++b) deltas.col(b) = testing::ball_point(gen, spec.d, b != 1);
  Vector v_set, v_single;
  Matrix g_set, g_single;
  word_set->sensitivity_objective(deltas, v_set, &g_set);
  single->sensitivity_objective(deltas, v_single, &g_single);
  for (Index b = 0; b < 3; ++b) {
    EXPECT_NEAR(v_set(b), v_single(b), 1e-11 * std::max(1.0, v_single(b))) << GetParam().label;
    EXPECT_LT(testing::relative_difference(g_set.col(b), g_single.col(b)), 1e-9)
        << GetParam().label;
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, WordSet, ::testing::ValuesIn(testing::all_model_cases()),
                         testing::case_name);

TEST(WordSet, RejectsRepeatedAndOutOfRangePositions) {
  const ModelSpec spec{"rf", 6, 4, 30, 1, Activation::relu};
  const auto model = make_feature_map(spec, {1, 1});
  const Matrix X = testing::test_sample(6, 4);
  EXPECT_THROW((void)model->at_word_set(X, std::vector<Index>{2, 2}), std::invalid_argument);
  EXPECT_THROW((void)model->at_word_set(X, std::vector<Index>{0, 6}), std::out_of_range);
  EXPECT_THROW((void)model->at_word_set(X, std::vector<Index>{}), std::invalid_argument);
}

TEST(WordSet, MarginalRfCannotMoveSeveralWords) {
  ModelSpec spec{"rf", 6, 4, 30, 1, Activation::relu};
  spec.sampling = RfSampling::marginal;
  const std::vector<Index> positions = {0, 1};
  const auto model = make_feature_map(spec, {1, 1}, positions);
  EXPECT_THROW((void)model->at_word_set(testing::test_sample(6, 4), positions),
               std::invalid_argument);
}

// ‖φ(X^M(Δ)) − φ(X)‖ ≤ U_M at 200 random points of the product of balls (half of them on the
// spheres) of 3 sets, for rf and drf, and the bound is within a modest factor of the largest
// value seen (it is not vacuous).
TEST(WordSetBound, HoldsAtRandomPointsForRfAndDrf) {
  for (const ModelSpec& spec : {ModelSpec{"rf", 8, 5, 160, 1, Activation::relu},
                                ModelSpec{"rf", 8, 5, 160, 1, Activation::tanh},
                                ModelSpec{"drf", 8, 5, 120, 2, Activation::relu}}) {
    const auto model = make_feature_map(spec, {7, 3});
    const Matrix X = testing::test_sample(spec.n, spec.d);
    const std::vector<std::vector<Index>> sets = {{0, 1}, {2, 5, 7}, {4}};
    const auto bound = model->word_set_upper_bound(X, sets);
    ASSERT_TRUE(bound.has_value()) << spec.name;
    EXPECT_EQ(bound->scope, BoundScope::examined_positions);
    std::mt19937_64 gen(11);
    double largest = 0.0;
    for (int trial = 0; trial < 200; ++trial) {
      const auto& set = sets[static_cast<std::size_t>(trial) % sets.size()];
      const Vector delta = product_ball_point(gen, spec.d, static_cast<Index>(set.size()));
      const double value = std::sqrt(from_scratch(*model, X, set, delta));
      EXPECT_LE(value, bound->value) << spec.name << " trial " << trial;
      largest = std::max(largest, value);
    }
    EXPECT_LT(bound->value, 20.0 * largest) << spec.name;
  }
}

// The bound of one set is the bound of that set alone, and a superset's bound is at least as
// large (‖V_M‖₂ grows with the columns, √(m·d) too).
TEST(WordSetBound, GrowsWithTheSet) {
  const ModelSpec spec{"rf", 8, 5, 160, 1, Activation::relu};
  const auto model = make_feature_map(spec, {7, 3});
  const Matrix X = testing::test_sample(spec.n, spec.d);
  const std::vector<std::vector<Index>> small = {{2, 5}}, large = {{2, 5, 7}};
  EXPECT_LT(model->word_set_upper_bound(X, small)->value,
            model->word_set_upper_bound(X, large)->value);
}

}  // namespace
}  // namespace wordsens
