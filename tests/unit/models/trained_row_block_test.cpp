// The trained attention's row blocks (models/trained/trained_row_block.hpp) against the plain
// loops they replace, at row, point and head counts around their tiles (6 rows of a product, 3 rows
// by 4 heads of dot products) and at widths around every vector width, inside wider arrays (the
// caller's column chunks and row strides).
#include "models/trained/trained_row_block.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/gaussian.hpp"
#include "core/philox.hpp"

namespace wordsens {
namespace {

Matrix sample(Index rows, Index cols, std::uint32_t id) {
  return GaussianMatrix({Philox(12, Stream::weights), 0, id}, 1.0).window(0, 0, rows, cols);
}

struct Shape {
  Index J, B, H, C;
};

// Every array of a block, with margins the kernels must not touch: C columns at column `c0` of
// rows `ld` apart, the rows' coefficients `coef_stride` apart.
struct Arrays {
  Shape s;
  Index c0 = 3, ld, coef_stride;
  Matrix kappa, alpha, up, bj, offset, g_kappa, g_alpha, d_up;

  explicit Arrays(Shape shape)
      : s(shape),
        ld(shape.C + 7),
        coef_stride(shape.B * shape.H + 2),
        kappa(sample(shape.J, coef_stride, 1)),
        alpha(sample(shape.J, coef_stride, 2)),
        up(sample(shape.B * shape.H, ld, 3)),
        bj(sample(shape.J, shape.H * ld, 4)),
        offset(sample(shape.J, ld, 5)),
        g_kappa(sample(shape.J, coef_stride, 6)),
        g_alpha(sample(shape.J, coef_stride, 7)),
        d_up(sample(shape.B * shape.H, ld, 8)) {}

  double k(Index j, Index b, Index h) const { return kappa(j, b * s.H + h); }
  double a(Index j, Index b, Index h) const { return alpha(j, b * s.H + h); }
  double u(Index b, Index h, Index c) const { return up(b * s.H + h, c0 + c); }
  double bjh(Index j, Index h, Index c) const { return bj(j, h * ld + c0 + c); }

  TrainedRowBlock block(double* r) {
    return {.J = s.J,
            .B = s.B,
            .H = s.H,
            .C = s.C,
            .kappa = kappa.data(),
            .alpha = alpha.data(),
            .coef_stride = coef_stride,
            .up = up.data() + c0,
            .ld = ld,
            .bj = bj.data() + c0,
            .bj_stride = s.H * ld,
            .offset = offset.data() + c0,
            .offset_stride = ld,
            .r = r};
  }
};

TEST(TrainedRowBlock, MatchesThePlainLoopsAtEveryTileShapeAndWidth) {
  for (const Shape shape : {Shape{1, 1, 1, 1}, Shape{12, 8, 12, 128}, Shape{7, 3, 12, 64},
                            Shape{13, 9, 5, 17}, Shape{5, 1, 7, 9}, Shape{6, 4, 4, 8},
                            Shape{2, 7, 3, 3}, Shape{11, 2, 8, 13}, Shape{4, 5, 1, 33}}) {
    const auto [J, B, H, C] = shape;
    const std::string at = "J = " + std::to_string(J) + ", B = " + std::to_string(B) +
                           ", H = " + std::to_string(H) + ", C = " + std::to_string(C);
    Arrays x(shape);
    const Arrays before(shape);

    // r = 2(offset + Σ_h κ u' + α B_j), values[b] = Σ_j ‖r_jb‖²/4.
    Matrix plain_r(J * B, C);
    Vector plain_values = Vector::Constant(B, 0.5);
    for (Index j = 0; j < J; ++j) {
      for (Index b = 0; b < B; ++b) {
        for (Index c = 0; c < C; ++c) {
          double sum = x.offset(j, x.c0 + c);
          for (Index h = 0; h < H; ++h) sum += x.k(j, b, h) * x.u(b, h, c);
          for (Index h = 0; h < H; ++h) sum += x.a(j, b, h) * x.bjh(j, h, c);
          plain_r(j * B + b, c) = 2.0 * sum;
          plain_values(b) += 0.25 * plain_r(j * B + b, c) * plain_r(j * B + b, c);
        }
      }
    }
    Matrix r(J * B, C);
    Vector values = Vector::Constant(B, 0.5);  // added to
    const TrainedRowBlock block = x.block(r.data());
    trained_block_residual(block, values.data());
    EXPECT_LE((r - plain_r).norm(), 1e-14 * plain_r.norm()) << at;
    EXPECT_LE((values - plain_values).norm(), 1e-14 * plain_values.norm()) << at;

    // The pullback of r, added to what the arrays held.
    Matrix plain_gk = before.g_kappa, plain_ga = before.g_alpha, plain_d_up = before.d_up;
    for (Index j = 0; j < J; ++j) {
      for (Index b = 0; b < B; ++b) {
        for (Index h = 0; h < H; ++h) {
          for (Index c = 0; c < C; ++c) {
            const double rc = plain_r(j * B + b, c);
            plain_gk(j, b * H + h) += x.u(b, h, c) * rc;
            plain_ga(j, b * H + h) += x.bjh(j, h, c) * rc;
            plain_d_up(b * H + h, x.c0 + c) += x.k(j, b, h) * rc;
          }
        }
      }
    }
    trained_block_pullback(block, x.g_kappa.data(), x.g_alpha.data(), x.d_up.data() + x.c0);
    const double scale = (x.up.norm() + x.bj.norm()) * plain_r.norm();
    EXPECT_LE((x.g_kappa - plain_gk).norm(), 1e-14 * scale) << at;
    EXPECT_LE((x.g_alpha - plain_ga).norm(), 1e-14 * scale) << at;
    EXPECT_LE((x.d_up - plain_d_up).norm(), 1e-14 * plain_d_up.norm() + 1e-14 * scale) << at;
    // Outside the block: the coefficients' padding and the columns outside the chunk untouched.
    EXPECT_EQ(x.g_kappa.rightCols(2), before.g_kappa.rightCols(2)) << at;
    EXPECT_EQ(x.g_alpha.rightCols(2), before.g_alpha.rightCols(2)) << at;
    EXPECT_EQ(x.d_up.leftCols(x.c0), before.d_up.leftCols(x.c0)) << at;
    EXPECT_EQ(x.d_up.rightCols(x.ld - x.c0 - C), before.d_up.rightCols(x.ld - x.c0 - C)) << at;
    // The inputs are read only.
    EXPECT_EQ(x.up, before.up) << at;
    EXPECT_EQ(x.bj, before.bj) << at;
    EXPECT_EQ(x.kappa, before.kappa) << at;
  }
}

}  // namespace
}  // namespace wordsens
