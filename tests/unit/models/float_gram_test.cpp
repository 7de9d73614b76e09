// The single-precision Gram bound (models/bounds/float_gram.hpp): its kernel's errors stay within
// the entrywise bound the analysis assumes (checked against the exact Gram matrix of the rounded
// entries in long double), the certified norm is above the long-double singular value and within
// the predicted slack, the rounding terms are necessary (a matrix whose rounded Gram matrix
// underestimates its norm), and the chunking is invisible.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "bound_checks.hpp"
#include "model_cases.hpp"
#include "models/bounds/float_gram.hpp"

namespace wordsens {
namespace {

Matrix gaussian_matrix(std::mt19937_64& gen, Index rows, Index cols, double scale) {
  Matrix B(rows, cols);
  for (Index r = 0; r < rows; ++r)
    B.row(r) = scale * testing::gaussian_vector(gen, cols).transpose();
  return B;
}

/// Adds B's rows in pieces of irregular sizes (so chunk boundaries fall inside pieces).
void add_in_pieces(FloatGram& gram, const Matrix& B) {
  Index r0 = 0, piece = 1;
  while (r0 < B.rows()) {
    const Index h = std::min(piece, B.rows() - r0);
    gram.add_rows(B.data() + r0 * B.cols(), h, B.cols());
    r0 += h;
    piece = piece * 3 + 1;
  }
}

const std::array<std::array<Index, 2>, 8> kShapes{
    {{1, 1}, {5, 3}, {33, 7}, {512, 24}, {513, 25}, {1500, 50}, {700, 70}, {2000, 4}}};

TEST(FloatGram, KernelErrorsStayWithinTheEntrywiseBound) {
  std::mt19937_64 gen(1);
  for (const auto& [rows, cols] : kShapes) {
    const Matrix B = gaussian_matrix(gen, rows, cols, 0.05);
    FloatGram gram(cols);
    add_in_pieces(gram, B);
    const Eigen::MatrixXd G = gram.gram();
    // The exact Gram matrix of the rounded entries, and |B̂|ᵀ|B̂|, in long double.
    const testing::LongMatrix Bf = B.cast<float>().cast<long double>();
    const testing::LongMatrix exact = Bf.transpose() * Bf;
    const testing::LongMatrix absolute = Bf.cwiseAbs().transpose() * Bf.cwiseAbs();
    const long double c = gram.gram_error_factor();
    long double worst = 0.0L;
    for (Index j = 0; j < cols; ++j) {
      for (Index l = 0; l < cols; ++l) {
        const long double error = std::abs(static_cast<long double>(G(j, l)) - exact(j, l));
        EXPECT_LE(error, c * absolute(j, l)) << rows << "x" << cols << " (" << j << "," << l << ")";
        worst = std::max(worst, error / absolute(j, l));
      }
    }
    // The bound is not vacuous: float sums of 32 products really do err at this level.
    if (rows >= 32) {
      EXPECT_GT(worst, 1e-9L) << rows << "x" << cols;
    }
  }
}

TEST(FloatGram, NormBoundIsAboveTheLongDoubleNormAndWithinTheSlack) {
  std::mt19937_64 gen(2);
  for (const auto& [rows, cols] : kShapes) {
    for (const double scale : {1.0, 1e-3, 1e-30}) {  // 1e-30: products underflow in float
      const Matrix B = gaussian_matrix(gen, rows, cols, scale);
      FloatGram gram(cols);
      add_in_pieces(gram, B);
      const FloatGramBound bound = gram.bound();
      const long double exact = testing::reference_norm(B);
      EXPECT_GE(static_cast<long double>(bound.norm_upper), exact) << rows << "x" << cols;
      // Predicted slack: Ĝ may exceed B̂ᵀB̂ by gram_error and the certificate adds it again, B̂
      // may exceed B by entry_error and the bound adds it again; plus the certificate's 1e-9.
      const long double slack = bound.gram_error / (exact * exact) + 2 * bound.entry_error / exact;
      EXPECT_LE(static_cast<long double>(bound.norm_upper), exact * (1 + slack + 1e-9L))
          << rows << "x" << cols << " scale " << scale;
      if (scale == 1.0) {
        EXPECT_LT(slack, 2e-4L) << rows << "x" << cols;
      }
    }
  }
}

TEST(FloatGram, RoundingTermsAreNecessary) {
  // Entries b = 1 + 2⁻¹² + 2⁻³⁰ round to the float 1 + 2⁻¹² (conversion error), whose square
  // 1 + 2⁻¹¹ + 2⁻²⁴ rounds to 1 + 2⁻¹¹ in float (a tie, to even): both roundings shrink ‖B‖, so
  // the computed Gram matrix alone, even certified, is below the true norm.
  const Index rows = 1000, cols = 3;
  const Matrix B = Matrix::Constant(rows, cols, 1.0 + std::ldexp(1.0, -12) + std::ldexp(1.0, -30));
  FloatGram gram(cols);
  gram.add_rows(B.data(), rows, cols);
  const FloatGramBound bound = gram.bound();
  const long double exact = testing::reference_norm(B);
  EXPECT_LT(static_cast<long double>(std::sqrt(bound.lambda_hat_upper)), exact);
  EXPECT_GE(static_cast<long double>(bound.norm_upper), exact);

  // Entries c = 1 + 7089·2⁻²³ are floats (no conversion error), but each float sum of 32 of
  // their squares rounds down, by ≈ 8.0·2⁻²⁴ relative in all, with fused multiply-add (x86-64-v3)
  // and without it (x86-64): more than the conversion term covers (2·2⁻²⁴ on λ), so the Gram
  // term is needed too. (The value was chosen by emulating both float sums; many values round
  // down in one build and up in the other.)
  const Matrix C = Matrix::Constant(32 * 40, 2, 1.0 + 7089 * std::ldexp(1.0, -23));
  FloatGram constant(2);
  constant.add_rows(C.data(), C.rows(), C.cols());
  const FloatGramBound c = constant.bound();
  const long double c_exact = testing::reference_norm(C);
  EXPECT_LT(static_cast<long double>(std::sqrt(c.lambda_hat_upper) + c.entry_error), c_exact);
  EXPECT_GE(static_cast<long double>(c.norm_upper), c_exact);
}

TEST(FloatGram, ChunkingAndResetAreInvisible) {
  std::mt19937_64 gen(3);
  const Matrix B = gaussian_matrix(gen, 1100, 9, 1.0);
  FloatGram whole(9), pieces(9);
  whole.add_rows(B.data(), B.rows(), B.cols());
  add_in_pieces(pieces, B);
  const Eigen::MatrixXd Gw = whole.gram(), Gp = pieces.gram();
  EXPECT_EQ((Gw - Gp).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(whole.bound().norm_upper, pieces.bound().norm_upper);
  pieces.reset();
  EXPECT_EQ(pieces.rows(), 0);
  add_in_pieces(pieces, B);
  EXPECT_EQ(pieces.bound().norm_upper, whole.bound().norm_upper);
  // A view with a row stride larger than the number of columns.
  const Matrix wide = gaussian_matrix(gen, 700, 12, 1.0);
  FloatGram strided(5), copied(5);
  strided.add_rows(wide.data() + 3, wide.rows(), wide.cols());
  const Matrix block = wide.middleCols(3, 5);
  copied.add_rows(block.data(), block.rows(), block.cols());
  EXPECT_EQ(strided.bound().norm_upper, copied.bound().norm_upper);
}

// The AVX-512 kernel computes every entry with the same fused multiply-adds in the same order
// as the portable one (one lane per entry), so Ĝ and the bound are the same bits. Shapes cover
// one and several panels, partial panels and partial sums, and chunks.
TEST(FloatGram, WideKernelGivesThePortableKernelsBits) {
  if (!FloatGram::wide_kernel_available()) {
    GTEST_SKIP() << "this CPU or build has no AVX-512 kernel: only the portable one runs";
  }
  std::mt19937_64 gen(4);
  for (const auto& [rows, cols] : std::array<std::array<Index, 2>, 6>{
           {{1, 1}, {33, 7}, {513, 48}, {1100, 49}, {700, 100}, {600, 200}}}) {
    const Matrix B = gaussian_matrix(gen, rows, cols, 0.3);
    FloatGram wide(cols), portable(cols, GramKernel::portable);
    ASSERT_TRUE(wide.uses_wide_kernel());
    ASSERT_FALSE(portable.uses_wide_kernel());
    add_in_pieces(wide, B);
    add_in_pieces(portable, B);
    const Eigen::MatrixXd Gw = wide.gram(), Gp = portable.gram();
    EXPECT_EQ((Gw - Gp).cwiseAbs().maxCoeff(), 0.0) << rows << " × " << cols;
    EXPECT_EQ(wide.bound().norm_upper, portable.bound().norm_upper) << rows << " × " << cols;
  }
}

}  // namespace
}  // namespace wordsens
