// The evaluators of several changed words (WordSets::at_word_set) against the plain
// computation: f(Δ) = ‖φ(X^M(Δ)) − φ(X)‖² from scratch, ∇f against central differences, one word
// against the single-position evaluator; attention's incremental evaluator against its
// from-scratch reference; the word-set bounds of rf and drf against f.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "model_cases.hpp"
#include "models/attention/attention.hpp"
#include "models/attention/attention_word_set.hpp"
#include "models/shared/word_set.hpp"

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
  const auto eval = require_word_sets(*model).at_word_set(X, set);
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
  const auto eval = require_word_sets(*model).at_word_set(X, set);
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
  const auto word_set = require_word_sets(*model).at_word_set(X, std::vector<Index>{position});
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

// raf and raf_relu: the incremental evaluator (only the moved rows and columns of the scores
// recomputed) against the from-scratch one, for explicit texts and weights.

/// W with iid N(0, 1/d) entries, as the model draws it.
Matrix attention_weights(std::mt19937_64& gen, Index d) {
  Matrix W(d, d);
  for (Index r = 0; r < d; ++r) {
    W.row(r) = testing::gaussian_vector(gen, d).transpose() / std::sqrt(static_cast<double>(d));
  }
  return W;
}

/// A text of n words: the test sample, or with every word rescaled to norm `radii`·√d (20: scores
/// in the hundreds, softmax rows close to one-hot, moves of 1/20 of a word).
Matrix attention_text(Index n, Index d, double radii) {
  Matrix X = testing::test_sample(n, d);
  if (radii > 0.0) {
    X.rowwise().normalize();
    X *= radii * std::sqrt(static_cast<double>(d));
  }
  return X;
}

/// B points of the product of m balls (blocks alternately on the sphere and inside).
Matrix product_ball_points(std::mt19937_64& gen, Index d, Index m, Index B) {
  Matrix deltas(m * d, B);
  for (Index b = 0; b < B; ++b) deltas.col(b) = product_ball_point(gen, d, m);
  return deltas;
}

/// f and ∇f of the incremental evaluator equal the from-scratch ones to `tol` relative (f relative
/// to itself, or to 10⁻¹²‖φ‖² when it is smaller; ∇f as a vector), and f without the gradient is
/// the same number.
void expect_matches_reference(const Matrix& X, const Matrix& W, AttentionKind kind,
                              const std::vector<Index>& set, const Matrix& deltas, double tol,
                              const std::string& label) {
  const auto fast = make_attention_word_set(X, W, kind, set);
  const auto reference = make_attention_word_set_from_scratch(X, W, kind, set);
  const Vector& phi = reference->base_features();
  EXPECT_LT(testing::relative_difference(fast->base_features(), phi), 1e-13) << label;
  Vector values, values_only, ref_values;
  Matrix grads, ref_grads;
  fast->sensitivity_objective(deltas, values, &grads);
  fast->sensitivity_objective(deltas, values_only, nullptr);
  reference->sensitivity_objective(deltas, ref_values, &ref_grads);
  ASSERT_EQ(grads.rows(), deltas.rows());
  ASSERT_EQ(grads.cols(), deltas.cols());
  for (Index b = 0; b < deltas.cols(); ++b) {
    const double scale = std::max(ref_values(b), 1e-12 * phi.squaredNorm());
    EXPECT_LE(std::abs(values(b) - ref_values(b)), tol * scale) << label << " point " << b;
    EXPECT_EQ(values(b), values_only(b)) << label << " point " << b;
    if (deltas.col(b).norm() == 0.0) {
      // ∇f(0) = 0: both are rounding (their ratio means nothing).
      EXPECT_LE(grads.col(b).norm(), 1e-12 * phi.squaredNorm()) << label << " point " << b;
    } else if (ref_grads.col(b).norm() > 0.0) {
      EXPECT_LT(testing::relative_difference(grads.col(b), ref_grads.col(b)), tol)
          << label << " point " << b;
    } else {
      EXPECT_EQ(grads.col(b).norm(), 0.0) << label << " point " << b;
    }
  }
}

std::string set_label(AttentionKind kind, const std::vector<Index>& set, double radii, Index B) {
  std::string label = kind == AttentionKind::softmax ? "raf {" : "raf_relu {";
  for (const Index i : set) label += std::to_string(i) + " ";
  return label + "} radii " + std::to_string(radii) + " B " + std::to_string(B);
}

class AttentionWordSet : public ::testing::TestWithParam<AttentionKind> {};

// m ∈ {1, 2, 5, n}, the first and last words, sets out of order and with gaps, one point per call
// and many, points inside the balls and on their spheres, ordinary words and words 20× the radius.
TEST_P(AttentionWordSet, IncrementalIsTheFromScratchEvaluation) {
  const AttentionKind kind = GetParam();
  const Index n = 9, d = 6;
  std::mt19937_64 gen(41);
  const Matrix W = attention_weights(gen, d);
  std::vector<Index> everyone(static_cast<std::size_t>(n));
  std::iota(everyone.begin(), everyone.end(), Index{0});
  std::shuffle(everyone.begin(), everyone.end(), gen);
  const std::vector<std::vector<Index>> sets = {
      {0}, {n - 1}, {4}, {0, n - 1}, {6, 2}, {1, 3, 4, 6, 8}, {8, 0, 5, 2, 6}, everyone};
  for (const double radii : {0.0, 20.0}) {
    const Matrix X = attention_text(n, d, radii);
    for (const auto& set : sets) {
      const Index m = static_cast<Index>(set.size());
      for (const Index B : {Index{1}, Index{7}}) {
        Matrix deltas = product_ball_points(gen, d, m, B);
        if (B > 1) deltas.col(B - 1).setZero();
        expect_matches_reference(X, W, kind, set, deltas, 1e-10, set_label(kind, set, radii, B));
      }
    }
  }
}

// The same evaluator object across calls of different widths (its scratch is resized).
TEST_P(AttentionWordSet, CallsOfDifferentWidthsAgree) {
  const AttentionKind kind = GetParam();
  const Index n = 8, d = 5;
  std::mt19937_64 gen(8);
  const Matrix W = attention_weights(gen, d);
  const Matrix X = attention_text(n, d, 0.0);
  const std::vector<Index> set = {5, 1, 7};
  const auto eval = make_attention_word_set(X, W, kind, set);
  const Matrix deltas = product_ball_points(gen, d, 3, 6);
  Vector all, one;
  Matrix all_grads, one_grad;
  eval->sensitivity_objective(deltas, all, &all_grads);
  for (Index b = 0; b < deltas.cols(); ++b) {
    eval->sensitivity_objective(deltas.col(b), one, &one_grad);
    EXPECT_NEAR(one(0), all(b), 1e-13 * std::max(1.0, all(b)));
    EXPECT_LT(testing::relative_difference(one_grad.col(0), all_grads.col(b)), 1e-13);
  }
}

TEST_P(AttentionWordSet, GradientMatchesCentralDifferences) {
  const AttentionKind kind = GetParam();
  const Index n = 7, d = 4;
  std::mt19937_64 gen(23);
  const Matrix W = attention_weights(gen, d);
  const Matrix X = attention_text(n, d, 0.0);
  constexpr double kStep = 1e-5;
  for (const std::vector<Index>& set :
       {std::vector<Index>{6, 2, 0}, std::vector<Index>{3, 0, 6, 1, 5, 2, 4}}) {
    const auto eval = make_attention_word_set(X, W, kind, set);
    const Index m = static_cast<Index>(set.size());
    for (int trial = 0; trial < 2; ++trial) {
      const Vector delta = product_ball_point(gen, d, m);
      Vector value;
      Matrix grad;
      eval->sensitivity_objective(delta, value, &grad);
      // All 2·m·d shifted points in one call.
      Matrix shifted(m * d, 2 * m * d);
      for (Index c = 0; c < m * d; ++c) {
        shifted.col(2 * c) = delta;
        shifted.col(2 * c + 1) = delta;
        shifted(c, 2 * c) += kStep;
        shifted(c, 2 * c + 1) -= kStep;
      }
      Vector f;
      eval->sensitivity_objective(shifted, f, nullptr);
      Vector numeric(m * d);
      for (Index c = 0; c < m * d; ++c) numeric(c) = (f(2 * c) - f(2 * c + 1)) / (2.0 * kStep);
      // ReLU kinks can sit between the two difference points (see above).
      EXPECT_LT(testing::relative_difference(grad.col(0), numeric), 1e-4)
          << set_label(kind, set, 0.0, 1) << " trial " << trial;
    }
  }
}

// m = 1: the single-word evaluator's objective (its batched Gram-number path), to rounding.
TEST_P(AttentionWordSet, OneWordIsTheSingleWordEvaluator) {
  const AttentionKind kind = GetParam();
  const Index n = 9, d = 6;
  std::mt19937_64 gen(12);
  const Matrix W = attention_weights(gen, d);
  for (const double radii : {0.0, 20.0}) {
    const Matrix X = attention_text(n, d, radii);
    for (const Index position : {Index{0}, Index{4}, n - 1}) {
      const auto word_set = make_attention_word_set(X, W, kind, {position});
      const auto single = make_attention_evaluator(X, W, kind, position);
      const Matrix deltas = product_ball_points(gen, d, 1, 5);
      Vector v_set, v_single;
      Matrix g_set, g_single;
      word_set->sensitivity_objective(deltas, v_set, &g_set);
      single->sensitivity_objective(deltas, v_single, &g_single);
      const std::string label = set_label(kind, {position}, radii, 5);
      for (Index b = 0; b < deltas.cols(); ++b) {
        EXPECT_NEAR(v_set(b), v_single(b), 1e-11 * std::max(1.0, v_single(b))) << label;
        EXPECT_LT(testing::relative_difference(g_set.col(b), g_single.col(b)), 1e-11) << label;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, AttentionWordSet,
                         ::testing::Values(AttentionKind::softmax, AttentionKind::relu),
                         [](const ::testing::TestParamInfo<AttentionKind>& param_info) {
                           return std::string(
                               param_info.param == AttentionKind::softmax ? "raf" : "raf_relu");
                         });

// raf_relu rows whose every score is ≤ 0 give zero, and moves switch rows between zero and not.
// W = −I, so S_rl = −x_r·x_l/√d. Words 1 … n−2 lie in the positive orthant: their scores with
// each other are negative, and each has one positive score, with word 0, which lies in the
// negative orthant of coordinates 2, 3 (zero in 0, 1). Word n−1 is positive in coordinates 0, 1
// only: its score with word 0 is 0, so its row is zero. Moving word 0 into the positive orthant
// zeroes every row; moving it to negative coordinates 0, 1 gives row n−1 a positive score.
TEST(AttentionWordSetRelu, RowsThatBecomeAllZero) {
  const Index n = 6, d = 4;
  std::mt19937_64 gen(19);
  Matrix X(n, d);
  for (Index r = 0; r < n; ++r) {
    X.row(r) = (testing::gaussian_vector(gen, d).cwiseAbs().array() + 0.5).matrix().transpose();
  }
  X.row(0).head(2).setZero();
  X.row(0) *= -1.0;
  X.row(n - 1).tail(2).setZero();
  const Matrix W = -Matrix::Identity(d, d);
  const auto relu_rows = [&W](const Matrix& text) {
    const Vector phi = AttentionFeatures::features_with(text, W, AttentionKind::relu);
    return Eigen::Map<const Matrix>(phi.data(), text.rows(), text.cols()).rowwise().norm().eval();
  };
  const Vector phi = AttentionFeatures::features_with(X, W, AttentionKind::relu);
  ASSERT_EQ(relu_rows(X)(n - 1), 0.0);
  ASSERT_GT(relu_rows(X).head(n - 1).minCoeff(), 0.0);
  // Column 0 of the points: every row zero; column 1: row n−1 no longer zero.
  const Vector to_positive = -2.0 * X.row(0).transpose() + Vector::Constant(d, 0.25);
  const Vector to_negative = -0.5 * Vector::Unit(d, 0) - 0.5 * Vector::Unit(d, 1);
  Matrix moved = X;
  moved.row(0) += to_positive.transpose();
  ASSERT_EQ(relu_rows(moved).maxCoeff(), 0.0);
  moved.row(0) = X.row(0) + to_negative.transpose();
  ASSERT_GT(relu_rows(moved)(n - 1), 0.0);

  for (const std::vector<Index>& set :
       {std::vector<Index>{0}, std::vector<Index>{0, 1}, std::vector<Index>{4, 0, n - 1}}) {
    const Index m = static_cast<Index>(set.size());
    Matrix deltas = product_ball_points(gen, d, m, 4);
    const Index slot = std::find(set.begin(), set.end(), Index{0}) - set.begin();
    deltas.col(0).setZero();
    deltas.col(0).segment(slot * d, d) = to_positive;
    deltas.col(1).setZero();
    deltas.col(1).segment(slot * d, d) = to_negative;
    expect_matches_reference(X, W, AttentionKind::relu, set, deltas, 1e-10,
                             set_label(AttentionKind::relu, set, 0.0, 4));
    // Every row zero: f = ‖φ(X)‖², and no row passes a gradient back.
    const auto eval = make_attention_word_set(X, W, AttentionKind::relu, set);
    Vector value;
    Matrix grad;
    eval->sensitivity_objective(deltas.col(0), value, &grad);
    EXPECT_NEAR(value(0), phi.squaredNorm(), 1e-13 * phi.squaredNorm());
    EXPECT_EQ(grad.norm(), 0.0);
  }
}

TEST(WordSet, RejectsRepeatedAndOutOfRangePositions) {
  const ModelSpec spec{ModelKind::rf, 6, 4, 30, 1, Activation::relu};
  const auto model = make_feature_map(spec, {1, 1});
  const Matrix X = testing::test_sample(6, 4);
  const WordSets& sets = require_word_sets(*model);
  EXPECT_THROW((void)sets.at_word_set(X, std::vector<Index>{2, 2}), std::invalid_argument);
  EXPECT_THROW((void)sets.at_word_set(X, std::vector<Index>{0, 6}), std::out_of_range);
  EXPECT_THROW((void)sets.at_word_set(X, std::vector<Index>{}), std::invalid_argument);
}

TEST(WordSet, MarginalRfCannotMoveSeveralWords) {
  ModelSpec spec{ModelKind::rf, 6, 4, 30, 1, Activation::relu};
  spec.sampling = RfSampling::marginal;
  const std::vector<Index> positions = {0, 1};
  const auto model = make_feature_map(spec, {1, 1}, positions);
  EXPECT_EQ(word_sets(*model), nullptr);
  try {
    (void)require_word_sets(*model);
    FAIL() << "the marginal sampler declared several changed words";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "rf: several changed words (--words > 1) are not available for this model or "
              "sampler");
  }
}

// Each optional capability is declared by exactly the models that have it (FeatureMap keeps
// only what every model does): word sets by all but rf's marginal sampler, a certified bound by
// rf and drf, guided starts by the random-feature models and the single-head attention models
// (the layers built as transformers, mhraf and block, have none).
TEST(WordSet, CapabilitiesAreDeclaredByTheModelsThatHaveThem) {
  struct Row {
    const char* name;
    RfSampling sampling;
    bool sets, bound, guides;
  };
  const std::vector<Index> positions = {0, 1};
  for (const Row& row : {Row{"rf", RfSampling::full, true, true, true},
                         Row{"rf", RfSampling::marginal, false, true, true},
                         Row{"drf", RfSampling::full, true, true, true},
                         Row{"raf", RfSampling::full, true, false, true},
                         Row{"raf_relu", RfSampling::full, true, false, true},
                         Row{"raf_v", RfSampling::full, true, false, true},
                         Row{"mhraf", RfSampling::full, true, false, false},
                         Row{"block", RfSampling::full, true, false, false}}) {
    ModelSpec spec{model_kind(row.name), 6, 4, 30, 2, Activation::relu};
    spec.sampling = row.sampling;
    const auto model = make_feature_map(spec, {1, 1}, positions);
    EXPECT_EQ(word_sets(*model) != nullptr, row.sets) << row.name;
    EXPECT_EQ(certified_bound(*model) != nullptr, row.bound) << row.name;
    EXPECT_EQ(guided_starts(*model) != nullptr, row.guides) << row.name;
  }
}

// ‖φ(X^M(Δ)) − φ(X)‖ ≤ U_M at 200 random points of the product of balls (half of them on the
// spheres) of 3 sets, for rf and drf, and the bound is within a modest factor of the largest
// value seen (it is not vacuous).
TEST(WordSetBound, HoldsAtRandomPointsForRfAndDrf) {
  for (const ModelSpec& spec : {ModelSpec{ModelKind::rf, 8, 5, 160, 1, Activation::relu},
                                ModelSpec{ModelKind::rf, 8, 5, 160, 1, Activation::tanh},
                                ModelSpec{ModelKind::drf, 8, 5, 120, 2, Activation::relu}}) {
    const auto model = make_feature_map(spec, {7, 3});
    const Matrix X = testing::test_sample(spec.n, spec.d);
    const std::vector<std::vector<Index>> sets = {{0, 1}, {2, 5, 7}, {4}};
    const auto bound = require_word_sets(*model).word_set_upper_bound(X, sets);
    ASSERT_TRUE(bound.has_value()) << traits(spec.kind).name;
    EXPECT_EQ(bound->scope, BoundScope::examined_positions);
    std::mt19937_64 gen(11);
    double largest = 0.0;
    for (int trial = 0; trial < 200; ++trial) {
      const auto& set = sets[static_cast<std::size_t>(trial) % sets.size()];
      const Vector delta = product_ball_point(gen, spec.d, static_cast<Index>(set.size()));
      const double value = std::sqrt(from_scratch(*model, X, set, delta));
      EXPECT_LE(value, bound->value) << traits(spec.kind).name << " trial " << trial;
      largest = std::max(largest, value);
    }
    EXPECT_LT(bound->value, 20.0 * largest) << traits(spec.kind).name;
  }
}

// The bound of one set is the bound of that set alone, and a superset's bound is at least as
// large (‖V_M‖₂ grows with the columns, √(m·d) too).
TEST(WordSetBound, GrowsWithTheSet) {
  const ModelSpec spec{ModelKind::rf, 8, 5, 160, 1, Activation::relu};
  const auto model = make_feature_map(spec, {7, 3});
  const Matrix X = testing::test_sample(spec.n, spec.d);
  const std::vector<std::vector<Index>> small = {{2, 5}}, large = {{2, 5, 7}};
  EXPECT_LT(require_word_sets(*model).word_set_upper_bound(X, small)->value,
            require_word_sets(*model).word_set_upper_bound(X, large)->value);
}

}  // namespace
}  // namespace wordsens
