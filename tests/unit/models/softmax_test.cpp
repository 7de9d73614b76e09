// raf / raf_relu stay finite and correct for scores of ±1000 (docs/METHOD.md §4), from scratch and
// in the fast evaluator, compared with a long-double reference (whose exponent range holds
// e^-2000).
#include <gtest/gtest.h>

#include <cmath>

#include "model_cases.hpp"
#include "models/attention/attention.hpp"

namespace wordsens {
namespace {

using LMatrix = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;

/// φ(X) in long double, without any max shift: exact enough to judge the double code.
Vector reference_features(const Matrix& X, const Matrix& W, AttentionKind kind) {
  const LMatrix Xl = X.cast<long double>();
  const LMatrix S =
      Xl * W.cast<long double>() * Xl.transpose() / std::sqrt(static_cast<long double>(X.cols()));
  LMatrix A(S.rows(), S.cols());
  for (Index j = 0; j < S.rows(); ++j) {
    long double total = 0;
    for (Index l = 0; l < S.cols(); ++l) {
      A(j, l) = kind == AttentionKind::softmax ? std::exp(S(j, l)) : std::max(S(j, l), 0.0L);
      total += A(j, l);
    }
    if (total > 0) A.row(j) /= total;
  }
  const LMatrix Y = A * Xl;
  Vector out(Y.size());
  for (Index j = 0; j < Y.rows(); ++j)
    for (Index c = 0; c < Y.cols(); ++c) out(j * Y.cols() + c) = static_cast<double>(Y(j, c));
  return out;
}

double max_abs_score(const Matrix& X, const Matrix& W) {
  return ((X * W * X.transpose()) / std::sqrt(static_cast<double>(X.cols()))).cwiseAbs().maxCoeff();
}

TEST(Softmax, ExactAtScoresOfPlusMinusThousand) {
  // Rows ±√2 e₁ and √2 e₂ with W = c·I: S = c√2 [[1,−1,0],[−1,1,0],[0,0,1]]; c√2 = 1000.
  const double r2 = std::sqrt(2.0);
  Matrix X(3, 2);
  X << r2, 0, -r2, 0, 0, r2;
  const Matrix W = Matrix::Identity(2, 2) * (1000.0 / r2);
  EXPECT_NEAR(max_abs_score(X, W), 1000.0, 1e-9);
  const Vector phi = AttentionFeatures::features_with(X, W, AttentionKind::softmax);
  ASSERT_TRUE(phi.allFinite());
  // Row 0 scores (1000, −1000, 0): all weight on word 0, so y_0 = x_0 (e^{-1000} is below
  // double precision relative to 1); likewise y_1 = x_1, y_2 = x_2.
  EXPECT_LT(testing::relative_difference(phi, vec(X)), 1e-15);
  EXPECT_LT(testing::relative_difference(phi, reference_features(X, W, AttentionKind::softmax)),
            1e-15);
}

class HugeScores : public ::testing::TestWithParam<AttentionKind> {};

TEST_P(HugeScores, ScratchAndEvaluatorMatchLongDouble) {
  const AttentionKind kind = GetParam();
  const Index n = 6, d = 4;
  std::mt19937_64 gen(31);
  const Matrix X = testing::test_sample(n, d);
  Matrix W(d, d);
  for (Index r = 0; r < d; ++r) W.row(r) = 150.0 * testing::gaussian_vector(gen, d).transpose();
  ASSERT_GT(max_abs_score(X, W), 500.0);  // scores in the hundreds to a thousand

  const Vector phi = AttentionFeatures::features_with(X, W, kind);
  ASSERT_TRUE(phi.allFinite());
  EXPECT_LT(testing::relative_difference(phi, reference_features(X, W, kind)), 1e-12);

  for (Index position : {Index{0}, Index{3}, n - 1}) {
    const auto eval = make_attention_evaluator(X, W, kind, position);
    for (int point = 0; point < 4; ++point) {
      const Vector delta = testing::ball_point(gen, d, point % 2 == 0);
      Matrix Xp = X;
      Xp.row(position) += delta.transpose();
      ASSERT_GT(max_abs_score(Xp, W), 500.0);
      Vector fast;
      eval->features_at(delta, fast);
      ASSERT_TRUE(fast.allFinite());
      EXPECT_LT(testing::relative_difference(fast, reference_features(Xp, W, kind)), 1e-12)
          << "position " << position;
      Vector grad;
      eval->pullback(fast, grad);
      EXPECT_TRUE(grad.allFinite());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, HugeScores,
                         ::testing::Values(AttentionKind::softmax, AttentionKind::relu));

TEST(ReluAttention, AllNonPositiveRowGivesZero) {
  // W = −I: every self-score is −√d·… < 0; with orthogonal words the other scores are 0.
  Matrix X = Matrix::Identity(3, 3) * std::sqrt(3.0);
  const Matrix W = -Matrix::Identity(3, 3);
  const Vector phi = AttentionFeatures::features_with(X, W, AttentionKind::relu);
  EXPECT_TRUE((phi.array() == 0.0).all());
  const auto eval = make_attention_evaluator(X, W, AttentionKind::relu, 1);
  Vector fast;
  eval->features_at(Vector::Zero(3), fast);
  EXPECT_TRUE((fast.array() == 0.0).all());
}

}  // namespace
}  // namespace wordsens
