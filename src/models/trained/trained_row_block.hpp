#pragma once
// The rows j ≠ i of the trained attention's batched objective (trained_attention_update.cpp), a
// block of J consecutive rows and a chunk of C columns at a time, for all B points of a call:
// each row's residual r = 2(M'_j − M_j) for every point, and r pulled back to α, κ and u'. As the
// products they are (for one point, the rows' κ times the H rows of u'; for one row, the points'
// α times the H rows of B_j; dot products of r with those rows; the rows' κ, transposed, times r),
// by register tiles that load each operand once for several rows or points: about 0.7 loads per
// fused multiply–add, against one or more when rows are taken one by one. The order of summation
// is fixed here (tiles chosen by the sizes alone): the same on every rank of a run.
#include "core/types.hpp"

namespace wordsens {

/// One block: J rows (local index jl), B points, H heads, C columns. Every pointer is already at
/// the block's first row and the chunk's first column.
struct TrainedRowBlock {
  Index J = 0, B = 0, H = 0, C = 0;
  const double* kappa = nullptr;  // κ of row jl, point b, head h: kappa[jl·coef_stride + b·H + h]
  const double* alpha = nullptr;  // α, laid out as κ
  Index coef_stride = 0;
  const double* up = nullptr;  // u'_bh: up + (b·H + h)·ld
  Index ld = 0;
  const double* bj = nullptr;  // B_jh of row jl: bj + jl·bj_stride + h·ld
  Index bj_stride = 0;
  const double* offset = nullptr;  // b_O − M_j of row jl: offset + jl·offset_stride
  Index offset_stride = 0;
  double* r = nullptr;  // J × B × C: the residual of row jl, point b at r + (jl·B + b)·C
};

/// r ← 2(offset + Σ_h κ_h u'_bh + α_h B_jh) for every row and point of the block, and
/// values[b] += ‖r_jb‖²/4 for every row.
void trained_block_residual(const TrainedRowBlock& block, double* values);

/// g_kappa[·] += u'_bh · r_jb, g_alpha[·] += B_jh · r_jb (both laid out as κ) and
/// d_up_bh += Σ_j κ_jbh r_jb (d_up laid out as up), from the residuals the block holds.
void trained_block_pullback(const TrainedRowBlock& block, double* g_kappa, double* g_alpha,
                            double* d_up);

}  // namespace wordsens
