#pragma once
// Lanczos with full reorthogonalisation for the largest eigenvalue of a symmetric positive
// semi-definite operator M given only as v ↦ Mv (e.g. M = BᵀB applied as Bᵀ(Bv)), with a
// residual-based upper bound on λ_max(M). drf uses it for its guided direction; rf's certified
// bound uses the deterministic Gram route instead (block_norm.cpp says why).
//
// Why θ + r bounds λ_max: after m steps, M Q = Q T + r_m e_mᵀ with orthonormal Q (kept
// orthonormal by reorthogonalising twice against every previous vector). The largest Ritz value θ
// never exceeds λ_max (Cauchy interlacing), and its Ritz pair (θ, y) has residual
// ‖My − θy‖ = β_m·|s_m| =: r, so some eigenvalue lies in [θ − r, θ + r] (Weinstein). When the
// Krylov space reaches the whole space (m = dim, always the case for small d: an invariant
// subspace met earlier is left by restarting with a vector orthogonal to Q), every eigenvalue of M
// is a Ritz value and θ + r ≥ λ_max holds outright. When the run stops earlier because r ≤ tol·θ,
// the eigenvalue within r of θ is λ_max unless the start vector is nearly orthogonal to the top
// eigenvector; for a random start that has probability ≤ 1.65·√dim·exp(−√ε·(2m−1)) of an error
// ε (Kuczyński–Woźniakowski 1992), negligible for the m used here.
#include <functional>

#include "core/types.hpp"

namespace wordsens {

using SymmetricOperator = std::function<void(const Vector& v, Vector& out)>;

struct LanczosOptions {
  Index max_iterations = 300;         // capped at the dimension
  double relative_tolerance = 1e-11;  // stop when r ≤ tol·θ
};

struct LanczosResult {
  double ritz_value = 0.0;  // θ ≤ λ_max
  double residual = 0.0;    // r = ‖My − θy‖ (plus the size of any breakdown vector dropped)
  Vector ritz_vector;       // y, unit norm: the approximate top eigenvector
  Index iterations = 0;     // m, the number of operator applications
  bool exhausted = false;   // m = dim: the Krylov space is the whole space
  [[nodiscard]] double upper_bound() const { return ritz_value + residual; }
};

/// Largest eigenpair of the dim × dim symmetric PSD operator M from the (non-zero) start vector.
[[nodiscard]] LanczosResult lanczos_top_eigen(const SymmetricOperator& apply, Index dim,
                                              const Vector& start,
                                              const LanczosOptions& options = {});

}  // namespace wordsens
