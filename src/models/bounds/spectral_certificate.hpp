#pragma once
// Certified upper bounds on the largest eigenvalue of a computed symmetric matrix, and on the
// spectral norm of a matrix from its computed Gram matrix. The certified bounds of rf, the
// marginal rf and drf (S_upper) all end here.
//
// λ_max(Ĝ) by a Cholesky certificate. A Lanczos estimate θ ≈ λ_max(Ĝ) (models/bounds/lanczos.hpp;
// an estimate only, never trusted) suggests a shift μ = θ + δ slightly above λ_max. If the Cholesky
// factorisation of the computed A = fl(μI − Ĝ) runs to completion (every pivot positive, every
// entry finite), then μI − Ĝ is positive semi-definite up to the terms below, so
//
//     λ_max(Ĝ) ≤ μ + γ_{m+2}·‖R̂‖_F² + u·max_j |μ − Ĝ_jj| + η,         (m = dim Ĝ, u = 2⁻⁵³)
//
// and a failed factorisation only means μ was too small: δ grows and we try again (after 40
// failures a Gershgorin bound is returned instead, which needs no factorisation).
//
// Why. Theorem (Demmel 1989, "On floating point errors in Cholesky", LAPACK Working Note 14;
// Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Thm 10.3): if Cholesky
// applied to a symmetric A ∈ R^{m×m} in floating-point arithmetic runs to completion, the
// computed factor R̂ satisfies R̂ᵀR̂ = A + ΔA with |ΔA| ≤ γ_{m+1}|R̂ᵀ||R̂| entrywise, barring
// underflow; the inner products may be evaluated in any order (Jeannerod & Rump, SIAM J. Matrix
// Anal. Appl. 34 (2013), improve γ_{m+1} to (m+1)u and state the order-independence explicitly).
// The proof charges each entry r̂_ij with the roundings on its path: ≤ m − 1 in its inner product,
// one in the division by r̂_jj (one in the square root on the diagonal). Eigen's blocked LLT
// (Eigen 3.4, LLT.h) evaluates the same formulas with the inner products split into blocks
// (still one sum of the same terms) but its triangular solve multiplies by a computed reciprocal
// 1/r̂_jj instead of dividing: one extra rounding per off-diagonal entry, hence γ_{m+2} here.
// Then: A + ΔA = R̂ᵀR̂ ⪰ 0, so λ_min(A) ≥ −‖ΔA‖₂ ≥ −γ_{m+2}‖|R̂|‖₂² ≥ −γ_{m+2}‖R̂‖_F²; A differs
// from μI − Ĝ only on the diagonal, by |fl(μ − Ĝ_jj) − (μ − Ĝ_jj)| ≤ u|μ − Ĝ_jj|, and
// λ_max(Ĝ) = μ − λ_min(μI − Ĝ). η = m²·(1 + max|r̂_ij|)·2⁻¹⁰⁷⁰ covers underflow (an underflowing
// product or quotient is off by at most 2⁻¹⁰⁷⁵ absolute). ‖R̂‖_F² is computed as a sum of
// m(m+1)/2 squares and rounded up by 1 + 2γ_{m(m+1)/2}; the last few operations by
// rounding::up.
//
// ‖B‖₂ from a double Gram matrix Ĝ = fl(BᵀB) (B: rows × cols, formed by any summation order):
// every entry is a sum of `rows` products, so |Ĝ − BᵀB| ≤ γ_rows·|B|ᵀ|B| + rows·2⁻¹⁰⁷⁴
// entrywise (underflow), and for a non-negative bound matrix F, |E| ≤ F ⇒ ‖E‖₂ ≤ ‖F‖₂, with
// ‖|B|ᵀ|B|‖₂ = ‖|B|‖₂² ≤ ‖B‖_F². Weyl: λ_max(BᵀB) ≤ λ_max(Ĝ) + γ_rows‖B‖_F² + cols·rows·2⁻¹⁰⁷⁴,
// and ‖B‖₂ = √λ_max(BᵀB). The computed ‖B‖_F² (a sum of rows·cols squares) is rounded up by
// 1 + 2γ_{rows·cols}.
#include <Eigen/Core>
#include <optional>

#include "core/types.hpp"

namespace wordsens {

struct LambdaMaxCertificate {
  double upper = 0.0;       // certified ≥ λ_max(Ĝ)
  double estimate = 0.0;    // the Lanczos Ritz value θ (≤ λ_max up to rounding; not certified)
  double shift = 0.0;       // μ of the successful factorisation (0 for the Gershgorin fallback)
  int factorisations = 0;   // Cholesky attempts made
  bool gershgorin = false;  // true when the fallback bound was returned
};

/// Certified upper bound on λ_max of the symmetric matrix whose lower triangle (diagonal included)
/// is that of G; the strictly upper part of G is ignored. Throws std::domain_error for non-finite
/// entries. Cost: one m³/3 Cholesky factorisation (rarely a few), plus a Lanczos estimate of
/// λ_max — or `estimate` instead, when given (tests pass wrong ones: the bound must not depend on
/// the estimate being right, only its tightness does). After `max_factorisations` failures the
/// Gershgorin bound is returned.
[[nodiscard]] LambdaMaxCertificate certify_lambda_max(Eigen::MatrixXd G,
                                                      std::optional<double> estimate = {},
                                                      int max_factorisations = 40);

/// U ≥ ‖B‖₂ from Ĝ = fl(BᵀB) (lower triangle used) formed in double precision by any summation
/// order, B's number of rows, and ‖B‖_F² computed in double (any order). See the header comment.
[[nodiscard]] double norm_bound_from_double_gram(Eigen::MatrixXd G, Index rows, double frobenius2);

/// U ≥ ‖B‖₂ for a stored matrix B: its double Gram matrix and the bound above.
[[nodiscard]] double certified_norm(const Matrix& B);

}  // namespace wordsens
