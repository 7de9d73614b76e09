// The batched word-sensitivity objective (PositionEvaluator::sensitivity_objective) against the
// plain computation: f(Δ) = ‖φ(X^i(Δ)) − φ(X)‖² from scratch, and ∇f against the single-point
// pullback and against central differences of the batched f itself. rf and raf override the
// default (GEMMs; raf never forms φ'), and drf's position group runs its hidden layers in one
// product per layer (row-block dot products up to 8 points, GEMMs beyond), so these are the
// checks of their fast paths.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model_cases.hpp"
#include "unit/models/test_encoder.hpp"

namespace wordsens {
namespace {

using testing::ModelCase;

/// B points of the ball: inside, on the sphere, and Δ = 0.
Matrix batch_of_points(std::mt19937_64& gen, Index d, Index B) {
  Matrix deltas(d, B);
  for (Index b = 0; b < B; ++b) {
    deltas.col(b) = b == 2 ? Vector::Zero(d) : testing::ball_point(gen, d, b % 2 == 0);
  }
  return deltas;
}

double distance_from_scratch(const FeatureMap& model, const Matrix& X, Index position,
                             const Vector& delta) {
  Matrix changed = X;
  changed.row(position) += delta.transpose();
  return (model.features(changed) - model.features(X)).squaredNorm();
}

// gradient_floor: what the gradients may differ by where they vanish (Δ = 0), rounding noise
// that grows with the size of φ.
void expect_batch_matches_plain(const FeatureMap& model, const Matrix& X, const std::string& label,
                                double value_tolerance, double gradient_floor = 1e-13) {
  const Index n = X.rows(), d = X.cols();
  std::mt19937_64 gen(31);
  // 5 points: rf's dot products straight from V_i's rows; 12: its GEMM path (rf_evaluator.cpp).
  for (const auto& [position, B] :
       {std::pair{Index{0}, Index{5}}, std::pair{n / 2, Index{12}}, std::pair{n - 1, Index{5}}}) {
    const auto eval = model.at_position(X, position);
    const Matrix deltas = batch_of_points(gen, d, B);
    Vector values, values_only;
    Matrix grads;
    eval->sensitivity_objective(deltas, values, &grads);
    eval->sensitivity_objective(deltas, values_only, nullptr);
    ASSERT_EQ(values.size(), B);
    ASSERT_EQ(grads.rows(), d);
    ASSERT_EQ(grads.cols(), B);
    for (Index b = 0; b < deltas.cols(); ++b) {
      const Vector delta = deltas.col(b);
      const double plain = distance_from_scratch(model, X, position, delta);
      const double scale = std::max(plain, 1e-12 * model.features(X).squaredNorm());
      EXPECT_LE(std::abs(values(b) - plain), value_tolerance * scale)
          << label << " position " << position << " point " << b;
      EXPECT_EQ(values(b), values_only(b)) << label << ": f without ∇f differs";
      // The single-point pullback of the cotangent 2(φ' − φ).
      Vector phi, grad;
      eval->features_at(delta, phi);
      eval->pullback(2.0 * (phi - eval->base_features()), grad);
      const Vector batched = grads.col(b);
      // Δ = 0 is stationary: there the single path gives 0 and the batch rounding-level noise.
      EXPECT_LE((batched - grad).norm(), 1e-9 * grad.norm() + gradient_floor)
          << label << " position " << position << " point " << b;
    }
  }
}

class BatchedObjective : public ::testing::TestWithParam<ModelCase> {};

TEST_P(BatchedObjective, EqualsPlainValuesAndSinglePointGradients) {
  const ModelSpec spec = GetParam().spec;
  const auto model = make_feature_map(spec, {5, 11});
  expect_batch_matches_plain(*model, testing::test_sample(spec.n, spec.d), GetParam().label, 1e-11);
}

// rf's rows go through in blocks of 64 (rf_evaluator.cpp): a width with two full blocks and a
// partial one, for both activations.
TEST(BatchedRfObjective, SeveralRowBlocksEqualPlainValuesAndSinglePointGradients) {
  for (const Activation act : {Activation::relu, Activation::tanh}) {
    const ModelSpec spec{ModelKind::rf, 6, 5, 150, 1, act};
    const auto model = make_feature_map(spec, {5, 12});
    expect_batch_matches_plain(*model, testing::test_sample(spec.n, spec.d), "rf k = 150", 1e-11);
  }
}

TEST_P(BatchedObjective, GradientMatchesCentralDifferencesOfBatchedValues) {
  const ModelSpec spec = GetParam().spec;
  const auto model = make_feature_map(spec, {17, 4});
  const Matrix X = testing::test_sample(spec.n, spec.d);
  std::mt19937_64 gen(77);
  constexpr double kStep = 1e-5;
  for (Index position : {Index{0}, spec.n - 1}) {
    const auto eval = model->at_position(X, position);
    const Matrix deltas = batch_of_points(gen, spec.d, 4);
    Vector values;
    Matrix grads;
    eval->sensitivity_objective(deltas, values, &grads);
    for (Index b : {Index{0}, Index{1}, Index{3}}) {
      // Every ±h perturbation of every coordinate in one batch of 2d points.
      Matrix around(spec.d, 2 * spec.d);
      for (Index j = 0; j < spec.d; ++j) {
        around.col(2 * j) = deltas.col(b);
        around.col(2 * j + 1) = deltas.col(b);
        around(j, 2 * j) += kStep;
        around(j, 2 * j + 1) -= kStep;
      }
      Vector f;
      eval->sensitivity_objective(around, f, nullptr);
      Vector fd(spec.d);
      for (Index j = 0; j < spec.d; ++j) fd(j) = (f(2 * j) - f(2 * j + 1)) / (2 * kStep);
      const Vector g = grads.col(b);
      EXPECT_LT(testing::relative_difference(g, fd), 1e-6)
          << GetParam().label << " position " << position << " point " << b;
    }
  }
}

TEST_P(BatchedObjective, SingleWordText) {
  ModelSpec spec = GetParam().spec;
  spec.n = 1;
  const auto model = make_feature_map(spec, {5, 11});
  const Matrix X = testing::test_sample(1, spec.d);
  const auto eval = model->at_position(X, 0);
  std::mt19937_64 gen(9);
  const Matrix deltas = batch_of_points(gen, spec.d, 3);
  Vector values;
  Matrix grads;
  eval->sensitivity_objective(deltas, values, &grads);
  for (Index b = 0; b < 3; ++b) {
    const double plain = distance_from_scratch(*model, X, 0, deltas.col(b));
    EXPECT_LE(std::abs(values(b) - plain), 1e-11 * std::max(plain, 1e-12)) << b;
  }
}

// A group of positions (raf: one call over the sample's shared products; drf: one GEMM per
// hidden layer for all the columns; rf: one call per position) gives for each column what that
// position's own evaluator gives, whatever the order of the columns.
TEST_P(BatchedObjective, PositionGroupEqualsEachPositionsOwnEvaluator) {
  const ModelSpec spec = GetParam().spec;
  const auto model = make_feature_map(spec, {6, 2});
  const Matrix X = testing::test_sample(spec.n, spec.d);
  const std::vector<Index> positions{spec.n - 1, 0, spec.n / 2};
  const auto group = model->at_positions(X, positions);
  ASSERT_EQ(group->size(), 3);
  std::mt19937_64 gen(5);
  // 7 points: drf's hidden layers without a GEMM; 14: with one (models/shared/hidden_layers.cpp).
  for (const Index B : {Index{7}, Index{14}}) {
    const Matrix deltas = batch_of_points(gen, spec.d, B);
    std::vector<Index> slots{2, 0, 0, 1, 2, 1, 0};  // interleaved, runs of one slot
    if (B == 14) slots.insert(slots.end(), {0, 0, 1, 1, 1, 2, 2});
    Vector values;
    Matrix grads;
    group->sensitivity_objective(slots, deltas, values, &grads);
    for (Index b = 0; b < deltas.cols(); ++b) {
      const Index slot = slots[static_cast<std::size_t>(b)];
      const auto own = model->at_position(X, positions[static_cast<std::size_t>(slot)]);
      Vector v;
      Matrix g;
      own->sensitivity_objective(deltas.col(b), v, &g);
      EXPECT_LE(std::abs(values(b) - v(0)), 1e-12 * std::max(v(0), 1.0)) << GetParam().label << b;
      EXPECT_LE((grads.col(b) - g.col(0)).norm(), 1e-10 * g.norm() + 1e-13)
          << GetParam().label << " column " << b;
      const double plain = distance_from_scratch(
          *model, X, positions[static_cast<std::size_t>(slot)], deltas.col(b));
      EXPECT_LE(std::abs(values(b) - plain), 1e-11 * std::max(plain, 1e-12)) << b;
    }
  }
  Vector values;
  Matrix grads;
  const Matrix deltas = batch_of_points(gen, spec.d, 7);
  EXPECT_THROW(group->sensitivity_objective(std::vector<Index>{0}, deltas, values, &grads),
               std::invalid_argument);
}

// The trained head's batched read-outs (PositionEvaluator::linear_readouts, the gen search's one
// call per round): values ⟨φ(X^i(Δ_b)), v_b⟩ against φ from scratch, gradients against the
// single-point pullback of v_b and against central differences of the batched values. Every
// column has its own read-out vector; rf's override is checked on its dot-product path (5
// points), its GEMM path (12) and several blocks of rows.
void expect_readouts_match_plain(const FeatureMap& model, const Matrix& X,
                                 const std::string& label) {
  const Index n = X.rows(), d = X.cols(), p = model.feature_dim();
  std::mt19937_64 gen(43);
  std::normal_distribution<double> normal;
  std::vector<Vector> directions(3, Vector(p));
  for (Vector& v : directions) {
    for (Index r = 0; r < p; ++r) v(r) = normal(gen);
  }
  for (const auto& [position, B] :
       {std::pair{Index{0}, Index{5}}, std::pair{n / 2, Index{12}}, std::pair{n - 1, Index{5}}}) {
    const auto eval = model.at_position(X, position);
    const Matrix deltas = batch_of_points(gen, d, B);
    std::vector<const Vector*> readouts;
    for (Index b = 0; b < B; ++b) readouts.push_back(&directions[(b * 7 + 1) % 3]);
    Vector values, values_only;
    Matrix grads;
    eval->linear_readouts(deltas, readouts, values, &grads);
    eval->linear_readouts(deltas, readouts, values_only, nullptr);
    ASSERT_EQ(values.size(), B);
    ASSERT_EQ(grads.rows(), d);
    ASSERT_EQ(grads.cols(), B);
    for (Index b = 0; b < B; ++b) {
      const Vector& v = *readouts[static_cast<std::size_t>(b)];
      const Vector delta = deltas.col(b);
      Matrix changed = X;
      changed.row(position) += delta.transpose();
      const Vector phi_plain = model.features(changed);
      const double plain = phi_plain.dot(v);
      const double scale = phi_plain.cwiseAbs().dot(v.cwiseAbs()) + 1e-300;
      EXPECT_LE(std::abs(values(b) - plain), 1e-12 * scale)
          << label << " position " << position << " point " << b;
      EXPECT_EQ(values(b), values_only(b)) << label << ": values without gradients differ";
      Vector phi, grad;
      eval->features_at(delta, phi);
      eval->pullback(v, grad);
      EXPECT_LE((grads.col(b) - grad).norm(), 1e-10 * grad.norm() + 1e-13)
          << label << " position " << position << " point " << b;
    }
    // Central differences of the batched values, for one point of each read-out.
    constexpr double kStep = 1e-5;
    for (Index b = 0; b < 3; ++b) {
      Matrix around(d, 2 * d);
      std::vector<const Vector*> same(static_cast<std::size_t>(2 * d),
                                      readouts[static_cast<std::size_t>(b)]);
      for (Index j = 0; j < d; ++j) {
        around.col(2 * j) = deltas.col(b);
        around.col(2 * j + 1) = deltas.col(b);
        around(j, 2 * j) += kStep;
        around(j, 2 * j + 1) -= kStep;
      }
      Vector f;
      eval->linear_readouts(around, same, f, nullptr);
      Vector fd(d);
      for (Index j = 0; j < d; ++j) fd(j) = (f(2 * j) - f(2 * j + 1)) / (2 * kStep);
      const Vector g = grads.col(b);
      // Δ = 0 (point 2) is no stationary point of a read-out: every point is checked.
      EXPECT_LT(testing::relative_difference(g, fd), 1e-6)
          << label << " position " << position << " point " << b;
    }
    EXPECT_THROW(eval->linear_readouts(deltas, std::span(readouts).first(1), values, &grads),
                 std::invalid_argument)
        << label;
  }
}

TEST_P(BatchedObjective, LinearReadoutsEqualPlainValuesAndSinglePointGradients) {
  const ModelSpec spec = GetParam().spec;
  const auto model = make_feature_map(spec, {8, 3});
  expect_readouts_match_plain(*model, testing::test_sample(spec.n, spec.d), GetParam().label);
}

TEST(BatchedRfObjective, LinearReadoutsOverSeveralRowBlocksAndTheMarginalSampler) {
  for (const Activation act : {Activation::relu, Activation::tanh}) {
    const ModelSpec spec{ModelKind::rf, 6, 5, 150, 1, act};
    const auto model = make_feature_map(spec, {5, 12});
    expect_readouts_match_plain(*model, testing::test_sample(spec.n, spec.d), "rf k = 150");
    ModelSpec marginal = spec;
    marginal.sampling = RfSampling::marginal;
    const Matrix X = testing::test_sample(spec.n, spec.d);
    const std::array<Index, 3> positions{0, 3, 5};
    const std::array<const Matrix*, 1> samples{&X};
    const auto sampled = make_feature_map(marginal, {5, 12}, positions, samples);
    expect_readouts_match_plain(*sampled, X, "rf marginal k = 150");
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, BatchedObjective,
                         ::testing::ValuesIn(testing::all_model_cases()), testing::case_name);

// raf's batched f is an expansion in Gram numbers (‖T_j‖², T_j·x_i, T_j·δ, …), not ‖φ' − φ‖²
// itself: check it where that expansion cancels most, at the paper's dimension, and with
// scores in the hundreds (saturated softmax rows whose maximum moves to word i).
TEST(BatchedAttentionObjective, AccurateWhereTheGramExpansionCancels) {
  for (const char* name : {"raf", "raf_relu"}) {
    // Every word equal: T_j / Z_j = x_i, so α_j T_j + γ_j x_i cancels to γ_j (x_i − x_i) = 0.
    ModelSpec spec{.kind = model_kind(name), .n = 9, .d = 6};
    const auto model = make_feature_map(spec, {3, 1});
    Matrix same(spec.n, spec.d);
    const Vector word = testing::test_sample(1, spec.d).row(0).transpose();
    for (Index j = 0; j < spec.n; ++j) same.row(j) = word.transpose();
    expect_batch_matches_plain(*model, same, std::string(name) + " equal words", 1e-10);
    // Words 20 times longer than the ball's radius: the terms of the expansion are 400 times f.
    expect_batch_matches_plain(*model, 20.0 * testing::test_sample(spec.n, spec.d),
                               std::string(name) + " long words", 1e-9);
    // A wide case: n = 40, d = 48.
    ModelSpec wide{.kind = model_kind(name), .n = 40, .d = 48};
    const auto wide_model = make_feature_map(wide, {3, 2});
    expect_batch_matches_plain(*wide_model, testing::test_sample(wide.n, wide.d),
                               std::string(name) + " n=40 d=48", 1e-11);
  }
}

// The trained attention takes its rows j ≠ i a block of rows and a chunk of columns at a time
// (trained_attention_update.cpp): check it where there are several of each, rows on both sides of
// i, and a last chunk narrower than the others (d = 400: 384 columns, then 16).
TEST(BatchedTrainedObjective, EqualsPlainValuesOverSeveralRowBlocksAndColumnChunks) {
  for (const ModelKind kind : {ModelKind::trained_attn, ModelKind::trained_layer}) {
    ModelSpec spec{.kind = kind, .n = 31, .d = 400};
    spec.encoder = testing::test_encoder(spec.d, 4, 2 * spec.d);
    const auto model = make_feature_map(spec, {3, 4});
    // At Δ = 0 the two gradients differ by about 2e-13 here, a φ of 12400 numbers.
    expect_batch_matches_plain(*model, testing::test_sample(spec.n, spec.d),
                               std::string(to_string(kind)) + " n=31 d=400", 1e-11, 1e-12);
  }
}

}  // namespace
}  // namespace wordsens
