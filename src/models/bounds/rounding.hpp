#pragma once
// The constants of floating-point error analysis used by the certified bounds (models/
// spectral_certificate.hpp, models/bounds/float_gram.hpp), in the standard model of IEEE 754 binary
// arithmetic with rounding to nearest: every operation on representable numbers returns the
// exact result times (1 + δ), |δ| ≤ u, unless it underflows (then the error is absolute, at most
// half the smallest subnormal for a product or a quotient; sums and differences of floating-point
// numbers are exact in the subnormal range).
//
// γ_n = n·u/(1 − n·u) bounds the accumulated relative error of n such operations: a sum of n
// products computed in ANY order and with any parenthesisation (fused multiply-adds included)
// satisfies |fl(Σ x_i y_i) − Σ x_i y_i| ≤ γ_n Σ |x_i y_i| (N. J. Higham, Accuracy and Stability
// of Numerical Algorithms, 2nd ed., SIAM 2002, §3.1), barring underflow.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/types.hpp"

namespace wordsens::rounding {

/// Unit roundoffs: u = 2⁻⁵³ (double), 2⁻²⁴ (float).
inline constexpr double kUnitDouble = std::numeric_limits<double>::epsilon() / 2;
inline constexpr double kUnitFloat = static_cast<double>(std::numeric_limits<float>::epsilon()) / 2;

/// The absolute error of one product or quotient that underflows: half the smallest subnormal
/// (2⁻¹⁰⁷⁵ in double, 2⁻¹⁵⁰ in float); we use the whole smallest subnormal as a margin.
inline constexpr double kUnderflowDouble = std::numeric_limits<double>::denorm_min();
inline constexpr double kUnderflowFloat =
    static_cast<double>(std::numeric_limits<float>::denorm_min());

/// γ_n for unit roundoff u. Throws when n·u ≥ 1/2 (the analysis no longer says anything useful).
inline double gamma(double n, double u) {
  const double nu = n * u;
  if (!(nu < 0.5)) throw std::domain_error("rounding::gamma: n*u >= 1/2");
  return nu / (1.0 - nu);
}

/// Every certified formula in this code evaluates at most 64 floating-point operations on
/// non-negative numbers after its rounding-error terms are formed; each adds a relative error
/// ≤ 2⁻⁵³, and (1 + 2⁻⁵³)⁶⁴ < 1 + 1e-14. Multiplying the result by 1 + kFinalMargin therefore
/// rounds it up past the exact value of the formula.
inline constexpr double kFinalMargin = 1e-13;

/// x rounded up by the final margin (x ≥ 0 expected; a negative x is moved up as well).
inline double up(double x) { return x + std::abs(x) * kFinalMargin; }

}  // namespace wordsens::rounding
