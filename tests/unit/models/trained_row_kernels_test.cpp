// The trained attention's row kernels (models/trained/trained_row_kernels.hpp), one row and two
// at once, against the plain products they replace, at head counts around their blocks of four and
// two and at widths around every vector width, inside a wider row (the column chunks of the
// caller).
#include "models/trained/trained_row_kernels.hpp"

#include <gtest/gtest.h>

#include "core/gaussian.hpp"
#include "core/philox.hpp"

namespace wordsens {
namespace {

Matrix sample(Index rows, Index cols, std::uint32_t id) {
  return GaussianMatrix({Philox(11, Stream::weights), 0, id}, 1.0).window(0, 0, rows, cols);
}

TEST(TrainedRowKernels, MatchThePlainProductsAtEveryHeadCountAndWidth) {
  for (const Index H : {1, 2, 3, 4, 5, 6, 7, 8, 12}) {
    for (const Index width : {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 64}) {
      const Index stride = width + 5, c = 3;  // columns [c, c + width) of rows stride apart
      const Matrix up = sample(H, stride, 1), bj = sample(H, stride, 2);
      const Matrix coef = sample(3, H, 3);
      const RowVector kappa = coef.row(0), alpha = coef.row(1), offset = sample(1, width, 4);
      const Matrix d_up_before = sample(H, stride, 5);
      const auto up_c = up.middleCols(c, width), bj_c = bj.middleCols(c, width);

      const RowVector plain_r = 2.0 * (offset + kappa * up_c + alpha * bj_c);
      RowVector r(width);
      const double quarter =
          trained_row_residual(kappa.data(), alpha.data(), up.data() + c, bj.data() + c,
                               offset.data(), H, width, stride, r.data());
      const std::string at = "H = " + std::to_string(H) + ", width = " + std::to_string(width);
      EXPECT_LE((r - plain_r).norm(), 1e-13 * plain_r.norm()) << at;
      EXPECT_NEAR(quarter, 0.25 * plain_r.squaredNorm(), 1e-13 * plain_r.squaredNorm()) << at;

      Vector g_kappa = coef.row(2).transpose(), g_alpha = Vector::Ones(H);  // added to
      Matrix d_up = d_up_before;
      trained_row_pullback(kappa.data(), up.data() + c, bj.data() + c, r.data(), H, width, stride,
                           g_kappa.data(), g_alpha.data(), d_up.data() + c);
      const Vector plain_gk = coef.row(2).transpose() + up_c * r.transpose();
      const Vector plain_ga = Vector::Ones(H) + bj_c * r.transpose();
      Matrix plain_d_up = d_up_before;
      plain_d_up.middleCols(c, width) += kappa.transpose() * r;
      const double scale = up_c.norm() * r.norm() + bj_c.norm() * r.norm();
      EXPECT_LE((g_kappa - plain_gk).norm(), 1e-13 * scale) << at;
      EXPECT_LE((g_alpha - plain_ga).norm(), 1e-13 * scale) << at;
      EXPECT_LE((d_up - plain_d_up).norm(), 1e-13 * plain_d_up.norm()) << at;
      // Columns outside the chunk are not touched.
      EXPECT_EQ(d_up.leftCols(c), d_up_before.leftCols(c)) << at;
      EXPECT_EQ(d_up.rightCols(stride - c - width), d_up_before.rightCols(stride - c - width))
          << at;

      // Two rows at once: as the plain products of each row, d_up taking both.
      const Matrix bj1 = sample(H, stride, 6);
      const RowVector kappa1 = sample(1, H, 7), r1 = sample(1, width, 8);
      Vector gk0 = Vector::Zero(H), ga0 = Vector::Zero(H), gk1 = Vector::Zero(H),
             ga1 = Vector::Zero(H);
      Matrix pair_d_up = d_up_before;
      trained_row_pair_pullback(kappa.data(), kappa1.data(), up.data() + c, bj.data() + c,
                                bj1.data() + c, r.data(), r1.data(), H, width, stride, gk0.data(),
                                ga0.data(), gk1.data(), ga1.data(), pair_d_up.data() + c);
      const auto bj1_c = bj1.middleCols(c, width);
      Matrix plain_pair = d_up_before;
      plain_pair.middleCols(c, width) += kappa.transpose() * r + kappa1.transpose() * r1;
      const double scale1 = (up_c.norm() + bj1_c.norm()) * r1.norm();
      EXPECT_LE((gk0 - up_c * r.transpose()).norm(), 1e-13 * scale) << at;
      EXPECT_LE((ga0 - bj_c * r.transpose()).norm(), 1e-13 * scale) << at;
      EXPECT_LE((gk1 - up_c * r1.transpose()).norm(), 1e-13 * scale1) << at;
      EXPECT_LE((ga1 - bj1_c * r1.transpose()).norm(), 1e-13 * scale1) << at;
      EXPECT_LE((pair_d_up - plain_pair).norm(), 1e-13 * plain_pair.norm()) << at;
      EXPECT_EQ(pair_d_up.leftCols(c), d_up_before.leftCols(c)) << at;
      EXPECT_EQ(pair_d_up.rightCols(stride - c - width), d_up_before.rightCols(stride - c - width))
          << at;
    }
  }
}

}  // namespace
}  // namespace wordsens
