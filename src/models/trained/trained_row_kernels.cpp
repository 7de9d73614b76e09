#include "models/trained/trained_row_kernels.hpp"

#include <algorithm>

namespace wordsens {
namespace {

// Eigen's own vector of doubles for this build (four under AVX, eight under AVX-512, two under
// SSE) and its fused multiply–add, as in Eigen's products: the ISO mode we compile in contracts no
// a·b + c by itself.
using Lane = Eigen::internal::packet_traits<double>::type;
constexpr Index kLane = Eigen::internal::packet_traits<double>::size;

Lane load(const double* p) { return Eigen::internal::ploadu<Lane>(p); }
void store(double* p, const Lane& v) { Eigen::internal::pstoreu(p, v); }
Lane splat(double x) { return Eigen::internal::pset1<Lane>(x); }
Lane fma(const Lane& a, const Lane& b, const Lane& c) { return Eigen::internal::pmadd(a, b, c); }
double lane_sum(const Lane& v) { return Eigen::internal::predux(v); }

}  // namespace

double trained_row_residual(const double* kappa, const double* alpha, const double* up,
                            const double* bj, const double* offset, Index H, Index width,
                            Index stride, double* r) {
  const Index d = stride;  // rows of up and bj
  const Index whole = width - width % kLane;
  // Four heads at a time added into r, so that eight products share one load and one store of r;
  // the first block starts from the offset, the last doubles r and sums its squares.
  const Index blocks = H / 4;
  Lane squares = splat(0.0);
  double tail = 0.0;
  for (Index block = 0; block < std::max<Index>(blocks, 1); ++block) {
    const Index h = 4 * block;
    const bool first = block == 0, last = block + 1 >= blocks && H % 4 == 0;
    const double* from = first ? offset : r;
    if (blocks == 0) {  // fewer than four heads: the offset alone, then head by head below
      std::copy(offset, offset + width, r);
      break;
    }
    const double* u0 = up + h * d;
    const double* b0 = bj + h * d;
    const double k0 = kappa[h], k1 = kappa[h + 1], k2 = kappa[h + 2], k3 = kappa[h + 3];
    const double a0 = alpha[h], a1 = alpha[h + 1], a2 = alpha[h + 2], a3 = alpha[h + 3];
    const Lane vk0 = splat(k0), vk1 = splat(k1), vk2 = splat(k2), vk3 = splat(k3);
    const Lane va0 = splat(a0), va1 = splat(a1), va2 = splat(a2), va3 = splat(a3);
    const Lane two = splat(2.0);
    for (Index c = 0; c < whole; c += kLane) {
      // Two chains of four, so that the products do not wait on each other.
      Lane from_up = fma(vk0, load(u0 + c), load(from + c));
      from_up = fma(vk1, load(u0 + d + c), from_up);
      from_up = fma(vk2, load(u0 + 2 * d + c), from_up);
      from_up = fma(vk3, load(u0 + 3 * d + c), from_up);
      Lane from_b = Eigen::internal::pmul(va0, load(b0 + c));
      from_b = fma(va1, load(b0 + d + c), from_b);
      from_b = fma(va2, load(b0 + 2 * d + c), from_b);
      from_b = fma(va3, load(b0 + 3 * d + c), from_b);
      Lane sum = Eigen::internal::padd(from_up, from_b);
      if (last) {
        sum = Eigen::internal::pmul(two, sum);
        squares = fma(sum, sum, squares);
      }
      store(r + c, sum);
    }
    for (Index c = whole; c < width; ++c) {
      const double from_up =
          from[c] + k0 * u0[c] + k1 * u0[d + c] + k2 * u0[2 * d + c] + k3 * u0[3 * d + c];
      const double from_b = a0 * b0[c] + a1 * b0[d + c] + a2 * b0[2 * d + c] + a3 * b0[3 * d + c];
      r[c] = from_up + from_b;
      if (last) {
        r[c] *= 2.0;
        tail += r[c] * r[c];
      }
    }
  }
  if (H % 4 == 0) return 0.25 * (lane_sum(squares) + tail);
  for (Index h = 4 * blocks; h < H; ++h) {
    const double* u0 = up + h * d;
    const double* b0 = bj + h * d;
    for (Index c = 0; c < width; ++c) r[c] += kappa[h] * u0[c] + alpha[h] * b0[c];
  }
  double total = 0.0;
  for (Index c = 0; c < width; ++c) {
    r[c] *= 2.0;
    total += r[c] * r[c];
  }
  return 0.25 * total;
}

void trained_row_pullback(const double* kappa, const double* up, const double* bj, const double* r,
                          Index H, Index width, Index stride, double* g_kappa, double* g_alpha,
                          double* d_up) {
  const Index d = stride;
  const Index whole = width - width % kLane;
  // Two heads at a time: one load of r serves four dot products and two updates of d_up.
  Index h = 0;
  for (; h + 2 <= H; h += 2) {
    const double* u0 = up + h * d;
    const double* u1 = u0 + d;
    const double* b0 = bj + h * d;
    const double* b1 = b0 + d;
    double* g0 = d_up + h * d;
    double* g1 = g0 + d;
    const double k0 = kappa[h], k1 = kappa[h + 1];
    const Lane vk0 = splat(k0), vk1 = splat(k1);
    Lane ku0 = splat(0.0), ku1 = ku0, ab0 = ku0, ab1 = ku0;
    for (Index c = 0; c < whole; c += kLane) {
      const Lane x = load(r + c);
      ku0 = fma(load(u0 + c), x, ku0);
      ku1 = fma(load(u1 + c), x, ku1);
      ab0 = fma(load(b0 + c), x, ab0);
      ab1 = fma(load(b1 + c), x, ab1);
      store(g0 + c, fma(vk0, x, load(g0 + c)));
      store(g1 + c, fma(vk1, x, load(g1 + c)));
    }
    double t_ku0 = 0.0, t_ku1 = 0.0, t_ab0 = 0.0, t_ab1 = 0.0;
    for (Index c = whole; c < width; ++c) {
      t_ku0 += u0[c] * r[c];
      t_ku1 += u1[c] * r[c];
      t_ab0 += b0[c] * r[c];
      t_ab1 += b1[c] * r[c];
      g0[c] += k0 * r[c];
      g1[c] += k1 * r[c];
    }
    g_kappa[h] += lane_sum(ku0) + t_ku0;
    g_kappa[h + 1] += lane_sum(ku1) + t_ku1;
    g_alpha[h] += lane_sum(ab0) + t_ab0;
    g_alpha[h + 1] += lane_sum(ab1) + t_ab1;
  }
  for (; h < H; ++h) {
    const double* u0 = up + h * d;
    const double* b0 = bj + h * d;
    double* g0 = d_up + h * d;
    double ku = 0.0, ab = 0.0;
    for (Index c = 0; c < width; ++c) {
      ku += u0[c] * r[c];
      ab += b0[c] * r[c];
      g0[c] += kappa[h] * r[c];
    }
    g_kappa[h] += ku;
    g_alpha[h] += ab;
  }
}

void trained_row_pair_pullback(const double* kappa0, const double* kappa1, const double* up,
                               const double* bj0, const double* bj1, const double* r0,
                               const double* r1, Index H, Index width, Index stride,
                               double* g_kappa0, double* g_alpha0, double* g_kappa1,
                               double* g_alpha1, double* d_up) {
  const Index d = stride;
  const Index whole = width - width % kLane;
  // Two rows and two heads at a time: one load of u' and one load and store of its cotangent
  // serve both rows (the single-row kernel's dearest operand), one load of each r four products.
  Index h = 0;
  for (; h + 2 <= H; h += 2) {
    const double* u0 = up + h * d;
    const double* u1 = u0 + d;
    const double* p0 = bj0 + h * d;  // row 0's B, heads h and h + 1
    const double* p1 = p0 + d;
    const double* q0 = bj1 + h * d;  // row 1's
    const double* q1 = q0 + d;
    double* g0 = d_up + h * d;
    double* g1 = g0 + d;
    const Lane k00 = splat(kappa0[h]), k01 = splat(kappa0[h + 1]);
    const Lane k10 = splat(kappa1[h]), k11 = splat(kappa1[h + 1]);
    Lane ku00 = splat(0.0), ku01 = ku00, ku10 = ku00, ku11 = ku00;
    Lane ab00 = ku00, ab01 = ku00, ab10 = ku00, ab11 = ku00;
    for (Index c = 0; c < whole; c += kLane) {
      const Lane x0 = load(r0 + c), x1 = load(r1 + c);
      const Lane v0 = load(u0 + c), v1 = load(u1 + c);
      ku00 = fma(v0, x0, ku00);
      ku01 = fma(v1, x0, ku01);
      ku10 = fma(v0, x1, ku10);
      ku11 = fma(v1, x1, ku11);
      ab00 = fma(load(p0 + c), x0, ab00);
      ab01 = fma(load(p1 + c), x0, ab01);
      ab10 = fma(load(q0 + c), x1, ab10);
      ab11 = fma(load(q1 + c), x1, ab11);
      store(g0 + c, fma(k10, x1, fma(k00, x0, load(g0 + c))));
      store(g1 + c, fma(k11, x1, fma(k01, x0, load(g1 + c))));
    }
    double t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (Index c = whole; c < width; ++c) {
      t[0] += u0[c] * r0[c];
      t[1] += u1[c] * r0[c];
      t[2] += u0[c] * r1[c];
      t[3] += u1[c] * r1[c];
      t[4] += p0[c] * r0[c];
      t[5] += p1[c] * r0[c];
      t[6] += q0[c] * r1[c];
      t[7] += q1[c] * r1[c];
      g0[c] += kappa0[h] * r0[c] + kappa1[h] * r1[c];
      g1[c] += kappa0[h + 1] * r0[c] + kappa1[h + 1] * r1[c];
    }
    g_kappa0[h] += lane_sum(ku00) + t[0];
    g_kappa0[h + 1] += lane_sum(ku01) + t[1];
    g_kappa1[h] += lane_sum(ku10) + t[2];
    g_kappa1[h + 1] += lane_sum(ku11) + t[3];
    g_alpha0[h] += lane_sum(ab00) + t[4];
    g_alpha0[h + 1] += lane_sum(ab01) + t[5];
    g_alpha1[h] += lane_sum(ab10) + t[6];
    g_alpha1[h + 1] += lane_sum(ab11) + t[7];
  }
  if (h < H) {  // an odd head count's last head, row by row
    trained_row_pullback(kappa0 + h, up + h * d, bj0 + h * d, r0, H - h, width, stride,
                         g_kappa0 + h, g_alpha0 + h, d_up + h * d);
    trained_row_pullback(kappa1 + h, up + h * d, bj1 + h * d, r1, H - h, width, stride,
                         g_kappa1 + h, g_alpha1 + h, d_up + h * d);
  }
}

}  // namespace wordsens
