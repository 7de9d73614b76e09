#pragma once
// Box–Muller from 32-bit words with our own branch-free log and sincos.
//
// Why not std::log / std::sincos: (1) libm results differ between glibc versions and CPUs, which
// would make weights differ between nodes of a cluster; these polynomials use only +, −, ×, ÷ and
// sqrt (all correctly rounded by IEEE 754), so every build on every x86-64 machine gives the same
// bits (gaussian.cpp is compiled with -ffp-contract=off so no FMA is formed either); (2) they are
// branch-free, so GCC vectorises loops over many words, and the vector and scalar remainder paths
// give the same bits. Accuracy is ~1e-15 relative, far beyond what the Gaussian law needs.
#include <bit>
#include <cstdint>

namespace wordsens::box_muller {

/// Branch-free select by an all-ones / all-zeros integer mask (so loops stay vectorisable).
inline double select(std::uint64_t mask, double if_set, double if_clear) {
  return std::bit_cast<double>((std::bit_cast<std::uint64_t>(if_set) & mask) |
                               (std::bit_cast<std::uint64_t>(if_clear) & ~mask));
}

/// Flips the sign of x when bit 0 of `flip` is set.
inline double flip_sign(double x, std::uint64_t flip) {
  return std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) ^ ((flip & 1U) << 63));
}

/// ln(u) for u > 0 normal (not subnormal): u = m·2^e, m ∈ [1, 2), folded to m' ∈ [√½, √2)
/// so that u near 1 keeps full relative accuracy (no cancellation between e·ln2 and ln m);
/// ln m' = 2·atanh(s), s = (m' − 1)/(m' + 1), |s| ≤ 0.1716, series to s¹⁹ (truncation < 1e-17).
/// The fold uses arithmetic, not a compare-and-select, which would not vectorise on SSE2.
inline double log_positive(double u) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(u);
  const std::uint64_t biased_exponent = (bits >> 52) & 0x7ffU;
  const double m = std::bit_cast<double>((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
  // Exact small-integer → double conversion without cvtsi2sd (not vectorisable on SSE2/AVX2).
  const double e =
      std::bit_cast<double>(0x4330000000000000ULL | biased_exponent) - 4503599627370496.0 - 1023.0;
  // fold = 1 when m > √2, else 0: m/√2 − ½ ∈ [0.21, 0.92) rounds to 0 or 1 (round-to-nearest by
  // adding and removing 1.5·2⁵²). Near the boundary either choice is accurate.
  constexpr double kRoundMagic = 6755399441055744.0;
  const double fold = ((m * 0.70710678118654752 - 0.5) + kRoundMagic) - kRoundMagic;
  const double folded_m = m * (1.0 - 0.5 * fold);  // exact: × 1 or × ½
  const double folded_e = e + fold;
  const double s = (folded_m - 1.0) / (folded_m + 1.0);
  const double s2 = s * s;
  double p = 1.0 / 19.0;
  for (int j = 8; j >= 0; --j) p = p * s2 + 1.0 / (2 * j + 1);
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 split so e·kLn2Hi is exact
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  return folded_e * kLn2Hi + (2.0 * s * p + folded_e * kLn2Lo);
}

/// sin(2πv) and cos(2πv) for v ∈ [0, 1]: quarter turns t = 4v = q + f, |f| ≤ ½, x = f·π/2,
/// Taylor series of sin to x¹⁷ and cos to x¹⁶ on |x| ≤ π/4 (truncation < 1e-16), then the
/// quadrant q mod 4 rotates (sin x, cos x).
inline void sincos_two_pi(double v, double& sine, double& cosine) {
  constexpr double kRoundMagic = 6755399441055744.0;  // 1.5·2⁵²: adding it rounds to an integer
  const double t = 4.0 * v;
  const double shifted = t + kRoundMagic;
  const std::uint64_t quadrant = std::bit_cast<std::uint64_t>(shifted) & 3U;
  const double f = t - (shifted - kRoundMagic);
  const double x = f * 1.5707963267948966;
  const double x2 = x * x;
  double s = 1.0 / 355687428096000.0;  // 1/17!
  s = s * x2 - 1.0 / 1307674368000.0;  // 1/15!
  s = s * x2 + 1.0 / 6227020800.0;
  s = s * x2 - 1.0 / 39916800.0;
  s = s * x2 + 1.0 / 362880.0;
  s = s * x2 - 1.0 / 5040.0;
  s = s * x2 + 1.0 / 120.0;
  s = s * x2 - 1.0 / 6.0;
  s = x + x * x2 * s;
  double c = 1.0 / 20922789888000.0;  // 1/16!
  c = c * x2 - 1.0 / 87178291200.0;
  c = c * x2 + 1.0 / 479001600.0;
  c = c * x2 - 1.0 / 3628800.0;
  c = c * x2 + 1.0 / 40320.0;
  c = c * x2 - 1.0 / 720.0;
  c = c * x2 + 1.0 / 24.0;
  c = c * x2 - 0.5;
  c = 1.0 + x2 * c;
  // Rotation by q quarter turns: q=0 (s, c), 1 (c, −s), 2 (−s, −c), 3 (−c, s).
  const std::uint64_t swap = 0 - (quadrant & 1U);
  sine = flip_sign(select(swap, c, s), quadrant >> 1);
  cosine = flip_sign(select(swap, s, c), quadrant ^ (quadrant >> 1));
}

/// A 32-bit word as a double, exactly, by the 2⁵² trick (vectorises where uint32 → double
/// conversion instructions do not exist).
inline double exact_double(std::uint32_t w) {
  return std::bit_cast<double>(0x4330000000000000ULL | w) - 4503599627370496.0;
}

/// The standard normal pair of two 32-bit words: √(−2 ln u₁)·(cos 2πu₂, sin 2πu₂) with
/// uᵢ = (wordᵢ + ½)·2⁻³² ∈ (0, 1).
inline void normal_pair(std::uint32_t w1, std::uint32_t w2, double& z1, double& z2) {
  constexpr double kScale = 1.0 / 4294967296.0;
  const double u1 = (exact_double(w1) + 0.5) * kScale;
  const double u2 = (exact_double(w2) + 0.5) * kScale;
  const double radius = __builtin_sqrt(-2.0 * log_positive(u1));
  double s, c;
  sincos_two_pi(u2, s, c);
  z1 = radius * c;
  z2 = radius * s;
}

}  // namespace wordsens::box_muller
