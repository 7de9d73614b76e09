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

}  // namespace wordsens
