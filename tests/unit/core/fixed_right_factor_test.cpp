// FixedRightFactor (core/fixed_right_factor.hpp) against the plain product it replaces,
// at widths and depths around Eigen's panel sizes, every row count a call of the evaluators has and
// more, slices of the depth (one head of a weight matrix), row strides wider than the rows, a
// scale, and results added to what is there.
#include "core/fixed_right_factor.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/gaussian.hpp"
#include "core/philox.hpp"

namespace wordsens {
namespace {

Matrix sample(Index rows, Index cols, std::uint32_t id) {
  return GaussianMatrix({Philox(13, Stream::weights), 0, id}, 1.0).window(0, 0, rows, cols);
}

TEST(FixedRightFactor, MatchesThePlainProductAtEveryShape) {
  std::uint32_t id = 0;
  for (const Index depth : {1, 3, 12, 32, 45, 96}) {
    for (const Index width : {1, 4, 7, 12, 13, 24, 37, 100}) {
      const Matrix M = sample(depth, width, id++);
      const FixedRightFactor factor(M);
      EXPECT_EQ(factor.depth(), depth);
      EXPECT_EQ(factor.width(), width);
      FixedRightFactor::Scratch scratch;
      for (const Index rows : {1, 2, 3, 4, 5, 8, 9, 17}) {
        for (const Index first : {Index{0}, depth / 3}) {
          const Index k = depth - first - (depth > 2 ? 1 : 0);
          const std::string at = "depth " + std::to_string(depth) + ", width " +
                                 std::to_string(width) + ", rows " + std::to_string(rows) +
                                 ", from row " + std::to_string(first);
          // A inside a wider array (its rows 3 columns apart more than its width), C too.
          const Matrix A_wide = sample(rows, k + 3, id++);
          const Matrix C_before = sample(rows, width + 5, id++);
          Matrix C_wide = C_before;
          factor.multiply_add(left_rows(A_wide.data() + 1, rows, k, A_wide.cols()), first, -0.5,
                              result_rows(C_wide.data() + 2, rows, width, C_wide.cols()), scratch);
          Matrix plain = C_before;
          plain.middleCols(2, width) -=
              0.5 * (A_wide.middleCols(1, k) * M.middleRows(first, k)).eval();
          const double scale =
              (A_wide.middleCols(1, k).cwiseAbs() * M.middleRows(first, k).cwiseAbs()).norm() +
              C_before.norm();
          EXPECT_LE((C_wide - plain).norm(), 1e-14 * scale) << at;
          // Nothing outside C's columns is written.
          EXPECT_EQ(C_wide.leftCols(2), C_before.leftCols(2)) << at;
          EXPECT_EQ(C_wide.rightCols(3), C_before.rightCols(3)) << at;

          Matrix C(rows, width);
          C.setConstant(7.0);
          factor.multiply(left_rows(A_wide.data() + 1, rows, k, A_wide.cols()), first, 1.0,
                          result_rows(C.data(), rows, width, width), scratch);
          const Matrix product = A_wide.middleCols(1, k) * M.middleRows(first, k);
          EXPECT_LE((C - product).norm(), 1e-14 * (scale + 1.0)) << at;
        }
      }
    }
  }
}

TEST(FixedRightFactor, RefusesShapesThatDoNotFit) {
  const FixedRightFactor factor(sample(10, 6, 1));
  FixedRightFactor::Scratch scratch;
  const Matrix A = sample(2, 8, 2);
  Matrix C(2, 6);
  // Rows 3 … 10 of a 10-row factor: one too many.
  EXPECT_THROW(factor.multiply(left_rows(A.data(), 2, 8, 8), 3, 1.0, result_rows(C.data(), 2, 6, 6),
                               scratch),
               std::invalid_argument);
  EXPECT_THROW(factor.multiply(left_rows(A.data(), 2, 8, 8), -1, 1.0,
                               result_rows(C.data(), 2, 6, 6), scratch),
               std::invalid_argument);
  Matrix narrow(2, 5);
  EXPECT_THROW(factor.multiply(left_rows(A.data(), 2, 8, 8), 0, 1.0,
                               result_rows(narrow.data(), 2, 5, 5), scratch),
               std::invalid_argument);
  Matrix short_result(1, 6);
  EXPECT_THROW(factor.multiply(left_rows(A.data(), 2, 8, 8), 0, 1.0,
                               result_rows(short_result.data(), 1, 6, 6), scratch),
               std::invalid_argument);
  EXPECT_NO_THROW(factor.multiply(left_rows(A.data(), 2, 8, 8), 2, 1.0,
                                  result_rows(C.data(), 2, 6, 6), scratch));
}

}  // namespace
}  // namespace wordsens
