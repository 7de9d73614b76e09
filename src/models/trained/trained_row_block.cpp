#include "models/trained/trained_row_block.hpp"

#include <algorithm>

namespace wordsens {
namespace {

// Eigen's own vector of doubles for this build (four under AVX, eight under AVX-512, two under
// SSE) and its fused multiply–add, as in Eigen's products: the ISO mode we compile in contracts no
// a·b + c by itself.
using Lane = Eigen::internal::packet_traits<double>::type;
constexpr Index kLane = Eigen::internal::packet_traits<double>::size;
constexpr Index kWidth = 2 * kLane;  // the columns of a tile of accumulate_tile

Lane load(const double* p) { return Eigen::internal::ploadu<Lane>(p); }
void store(double* p, const Lane& v) { Eigen::internal::pstoreu(p, v); }
Lane splat(double x) { return Eigen::internal::pset1<Lane>(x); }
Lane fma(const Lane& a, const Lane& b, const Lane& c) { return Eigen::internal::pmadd(a, b, c); }
double lane_sum(const Lane& v) { return Eigen::internal::predux(v); }

// A small coefficient matrix times K rows of kWidth columns, added to R rows:
// out_r ← init_r + Σ_k coef(r, k) · v_k, coef(r, k) = coef[r·rs + k·ks], v_k = v + k·vs,
// init_r = init + r·is, out_r = out + r·os (init may be out). The 2R accumulators stay in
// registers while the K rows go by, each row loaded once for all R rows of the tile.
struct Operands {
  const double* coef;
  Index rs, ks, K;
  const double* v;
  Index vs;
  const double* init;
  Index is;
  double* out;
  Index os;
};

// With kDoubled (the residual's last term), the sums are stored doubled and the squares of what is
// stored added to `squares`, one vector per row.
template <int R, bool kDoubled>
void accumulate_tile(const Operands& o, Lane* squares) {
  Lane a0[R], a1[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    a0[r] = load(o.init + r * o.is);
    a1[r] = load(o.init + r * o.is + kLane);
  }
  for (Index k = 0; k < o.K; ++k) {
    const Lane v0 = load(o.v + k * o.vs), v1 = load(o.v + k * o.vs + kLane);
    const double* coef = o.coef + k * o.ks;
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const Lane c = splat(coef[r * o.rs]);
      a0[r] = fma(c, v0, a0[r]);
      a1[r] = fma(c, v1, a1[r]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    if constexpr (kDoubled) {
      a0[r] = Eigen::internal::padd(a0[r], a0[r]);
      a1[r] = Eigen::internal::padd(a1[r], a1[r]);
      squares[r] = fma(a1[r], a1[r], fma(a0[r], a0[r], squares[r]));
    }
    store(o.out + r * o.os, a0[r]);
    store(o.out + r * o.os + kLane, a1[r]);
  }
}

// accumulate_tile over R rows and `width` columns, the last ones (fewer than kWidth) one by one;
// with kDoubled, a quarter of the squares of each row's stored numbers added to quarter_squares[r].
template <int R, bool kDoubled>
void accumulate_rows(const Operands& o, Index width, double* quarter_squares) {
  Lane squares[R];
  for (int r = 0; r < R; ++r) squares[r] = splat(0.0);
  Index c = 0;
  for (; c + kWidth <= width; c += kWidth) {
    Operands at = o;
    at.v += c;
    at.init += c;
    at.out += c;
    accumulate_tile<R, kDoubled>(at, squares);
  }
  for (int r = 0; r < R; ++r) {
    double tail = 0.0;
    for (Index x = c; x < width; ++x) {
      double sum = o.init[r * o.is + x];
      for (Index k = 0; k < o.K; ++k) sum += o.coef[r * o.rs + k * o.ks] * o.v[k * o.vs + x];
      if constexpr (kDoubled) {
        sum *= 2.0;
        tail += sum * sum;
      }
      o.out[r * o.os + x] = sum;
    }
    if constexpr (kDoubled) quarter_squares[r] += 0.25 * (lane_sum(squares[r]) + tail);
  }
}

// 12 accumulators, 2 rows of v and a coefficient: the 16 vector registers of AVX2 (x86-64-v3, the
// default build), as Eigen's own product kernel there.
constexpr int kMostRows = 6;

// accumulate_rows over `rows` rows (≤ kMostRows).
template <bool kDoubled = false>
void accumulate(const Operands& o, Index rows, Index width, double* quarter_squares = nullptr) {
  switch (rows) {
    case 1:
      accumulate_rows<1, kDoubled>(o, width, quarter_squares);
      break;
    case 2:
      accumulate_rows<2, kDoubled>(o, width, quarter_squares);
      break;
    case 3:
      accumulate_rows<3, kDoubled>(o, width, quarter_squares);
      break;
    case 4:
      accumulate_rows<4, kDoubled>(o, width, quarter_squares);
      break;
    case 5:
      accumulate_rows<5, kDoubled>(o, width, quarter_squares);
      break;
    default:
      accumulate_rows<6, kDoubled>(o, width, quarter_squares);
      break;
  }
}

// Dot products of R rows of x with N rows of y over C columns, added to out:
// out[r·os + h] += x_r · y_h, x_r = x + r·xs, y_h = y + h·ys. The R·N accumulators stay in
// registers, each row of x loaded once for all N, each row of y once for all R.
template <int R, int N>
void dot_tile(const double* x, Index xs, const double* y, Index ys, Index C, double* out,
              Index os) {
  Lane acc[R][N];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int h = 0; h < N; ++h) acc[r][h] = splat(0.0);
  }
  const Index whole = C - C % kLane;
  for (Index c = 0; c < whole; c += kLane) {
    Lane xr[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) xr[r] = load(x + r * xs + c);
#pragma GCC unroll 4
    for (int h = 0; h < N; ++h) {
      const Lane yh = load(y + h * ys + c);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) acc[r][h] = fma(xr[r], yh, acc[r][h]);
    }
  }
  if constexpr (N == kLane) {
    // Each row's N sums as one vector, the accumulators transposed and added: a third of the
    // instructions of N sums across one vector each (the whole block 4–5 % faster).
    for (int r = 0; r < R; ++r) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"  // Eigen's vector type as a template argument
      Eigen::internal::PacketBlock<Lane, N> block;
#pragma GCC diagnostic pop
      for (int h = 0; h < N; ++h) block.packet[h] = acc[r][h];
      Eigen::internal::ptranspose(block);
      Lane sums = block.packet[0];
      for (int h = 1; h < N; ++h) sums = Eigen::internal::padd(sums, block.packet[h]);
      if (whole < C) {
        alignas(64) double tail[N];
        for (int h = 0; h < N; ++h) {
          tail[h] = 0.0;
          for (Index c = whole; c < C; ++c) tail[h] += x[r * xs + c] * y[h * ys + c];
        }
        sums = Eigen::internal::padd(sums, load(tail));
      }
      store(out + r * os, Eigen::internal::padd(load(out + r * os), sums));
    }
  } else {
    for (int r = 0; r < R; ++r) {
      for (int h = 0; h < N; ++h) {
        double sum = lane_sum(acc[r][h]);
        for (Index c = whole; c < C; ++c) sum += x[r * xs + c] * y[h * ys + c];
        out[r * os + h] += sum;
      }
    }
  }
}

constexpr int kDotRows = 3, kDotHeads = 4;  // 12 accumulators, 3 rows of x and one of y

template <int R>
void dot_heads(const double* x, Index xs, const double* y, Index ys, Index C, Index heads,
               double* out, Index os) {
  Index h = 0;
  for (; h + kDotHeads <= heads; h += kDotHeads) {
    dot_tile<R, kDotHeads>(x, xs, y + h * ys, ys, C, out + h, os);
  }
  switch (heads - h) {
    case 0:
      break;
    case 1:
      dot_tile<R, 1>(x, xs, y + h * ys, ys, C, out + h, os);
      break;
    case 2:
      dot_tile<R, 2>(x, xs, y + h * ys, ys, C, out + h, os);
      break;
    default:
      dot_tile<R, 3>(x, xs, y + h * ys, ys, C, out + h, os);
      break;
  }
}

// dot_tile of `rows` rows (≤ kDotRows) against every head.
void dot(const double* x, Index xs, Index rows, const double* y, Index ys, Index C, Index heads,
         double* out, Index os) {
  switch (rows) {
    case 1:
      dot_heads<1>(x, xs, y, ys, C, heads, out, os);
      break;
    case 2:
      dot_heads<2>(x, xs, y, ys, C, heads, out, os);
      break;
    default:
      dot_heads<3>(x, xs, y, ys, C, heads, out, os);
      break;
  }
}

// `count` rows in the fewest tiles of at most `most`, as even as they come: f(first, rows).
template <class F>
void by_tiles(Index count, Index most, F&& f) {
  const Index tiles = (count + most - 1) / most;
  Index first = 0;
  for (Index t = 0; t < tiles; ++t) {
    const Index rows = (count - first) / (tiles - t);
    f(first, rows);
    first += rows;
  }
}

}  // namespace

void trained_block_residual(const TrainedRowBlock& k, double* values) {
  const Index H = k.H, C = k.C, rows_apart = k.B * C;
  // The offset plus Σ_h κ_h u'_bh: for one point, the rows' κ (rows × H) times u'_b (H × C).
  for (Index b = 0; b < k.B; ++b) {
    by_tiles(k.J, kMostRows, [&](Index first, Index rows) {
      accumulate({.coef = k.kappa + first * k.coef_stride + b * H,
                  .rs = k.coef_stride,
                  .ks = 1,
                  .K = H,
                  .v = k.up + b * H * k.ld,
                  .vs = k.ld,
                  .init = k.offset + first * k.offset_stride,
                  .is = k.offset_stride,
                  .out = k.r + (first * k.B + b) * C,
                  .os = rows_apart},
                 rows, C);
    });
  }
  // Plus Σ_h α_h B_jh: for one row, the points' α (points × H) times B_j (H × C); doubled, and
  // a quarter of its squares added to the points' values.
  for (Index jl = 0; jl < k.J; ++jl) {
    by_tiles(k.B, kMostRows, [&](Index first, Index points) {
      double* r = k.r + (jl * k.B + first) * C;
      accumulate<true>({.coef = k.alpha + jl * k.coef_stride + first * H,
                        .rs = H,
                        .ks = 1,
                        .K = H,
                        .v = k.bj + jl * k.bj_stride,
                        .vs = k.ld,
                        .init = r,
                        .is = C,
                        .out = r,
                        .os = C},
                       points, C, values + first);
    });
  }
}

void trained_block_pullback(const TrainedRowBlock& k, double* g_kappa, double* g_alpha,
                            double* d_up) {
  const Index H = k.H, C = k.C, rows_apart = k.B * C;
  // u'_bh · r_jb: for one point, the rows' residuals against u'_b's H rows.
  for (Index b = 0; b < k.B; ++b) {
    by_tiles(k.J, kDotRows, [&](Index first, Index rows) {
      dot(k.r + (first * k.B + b) * C, rows_apart, rows, k.up + b * H * k.ld, k.ld, C, H,
          g_kappa + first * k.coef_stride + b * H, k.coef_stride);
    });
  }
  // B_jh · r_jb: for one row, the points' residuals against B_j's H rows.
  for (Index jl = 0; jl < k.J; ++jl) {
    by_tiles(k.B, kDotRows, [&](Index first, Index points) {
      dot(k.r + (jl * k.B + first) * C, C, points, k.bj + jl * k.bj_stride, k.ld, C, H,
          g_alpha + jl * k.coef_stride + first * H, H);
    });
  }
  // d_up_bh += Σ_j κ_jbh r_jb: for one point, its κ transposed (H × rows) times the rows'
  // residuals (rows × C).
  for (Index b = 0; b < k.B; ++b) {
    by_tiles(H, kMostRows, [&](Index first, Index heads) {
      double* out = d_up + (b * H + first) * k.ld;
      accumulate({.coef = k.kappa + b * H + first,
                  .rs = 1,
                  .ks = k.coef_stride,
                  .K = k.J,
                  .v = k.r + b * C,
                  .vs = rows_apart,
                  .init = out,
                  .is = k.ld,
                  .out = out,
                  .os = k.ld},
                 heads, C);
    });
  }
}

}  // namespace wordsens
