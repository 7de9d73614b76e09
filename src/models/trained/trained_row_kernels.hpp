#pragma once
// The two row kernels of the trained attention's batched objective (trained_attention_update.cpp),
// on columns [c, c + width) of row j ≠ i of one point: its residual from the H rows of u' (up)
// and of B_j, and that residual pulled back through the same rows. The caller walks the columns
// in chunks small enough that both kernels find their operands in the first-level cache. They use
// Eigen's vectors with an order of summation fixed here: the same on every rank of a run.
#include "core/types.hpp"

namespace wordsens {

/// r ← 2(offset + Σ_h kappa[h]·up_h + alpha[h]·bj_h), up_h and bj_h rows h of the H × width
/// arrays `up` and `bj` (rows `stride` doubles apart), r and offset of length width. Returns
/// ‖r‖²/4.
double trained_row_residual(const double* kappa, const double* alpha, const double* up,
                            const double* bj, const double* offset, Index H, Index width,
                            Index stride, double* r);

/// g_kappa[h] += up_h · r, g_alpha[h] += bj_h · r and d_up_h += kappa[h]·r for h = 0 … H−1
/// (d_up laid out like up and bj).
void trained_row_pullback(const double* kappa, const double* up, const double* bj, const double* r,
                          Index H, Index width, Index stride, double* g_kappa, double* g_alpha,
                          double* d_up);

/// trained_row_pullback for two rows j0, j1 of the same point at once (their kappa, bj, r,
/// g_kappa and g_alpha), sharing up and d_up: d_up_h += kappa0[h]·r0 + kappa1[h]·r1.
void trained_row_pair_pullback(const double* kappa0, const double* kappa1, const double* up,
                               const double* bj0, const double* bj1, const double* r0,
                               const double* r1, Index H, Index width, Index stride,
                               double* g_kappa0, double* g_alpha0, double* g_kappa1,
                               double* g_alpha1, double* d_up);

}  // namespace wordsens
