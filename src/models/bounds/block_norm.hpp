#pragma once
// Certified upper bounds on the spectral norm of a column block of a Gaussian weight matrix (rf:
// ‖V_i‖₂, the factor of S_upper), streamed so that the block is never stored.
#include <functional>

#include "core/gaussian.hpp"
#include "core/types.hpp"

namespace wordsens {

struct BlockSpectrum {
  double norm_upper = 0.0;     // U ≥ ‖B‖₂, certified (see block_norm.cpp)
  double norm_estimate = 0.0;  // √λ̂_max, the computed value itself
  Vector top_right_vector;     // unit top eigenvector of BᵀB (the top right-singular vector of B)
};

/// B = V.window(0, col0, rows, cols). Memory O(cols² + kGramChunk·cols); cost rows·cols² flops
/// (double) for the Gram matrix plus O(cols³) for its eigen-decomposition and the certificate.
[[nodiscard]] BlockSpectrum column_block_spectrum(const GaussianMatrix& V, Index rows, Index col0,
                                                  Index cols);

/// U ≥ ‖B‖₂ alone, from a single-precision Gram matrix (models/bounds/float_gram.hpp): about twice
/// as fast as column_block_spectrum and looser by the rounding terms (≈ 6e-4 relative at cols =
/// 768, rows = 115200; below 1e-4 at cols ≤ 64), no singular vector.
[[nodiscard]] double column_block_norm_bound(const GaussianMatrix& V, Index rows, Index col0,
                                             Index cols);

/// Calls fill(r0, h, out) for the row chunks of a tall rows × cols matrix B (out: h × cols,
/// row-major, cols doubles apart) and returns U ≥ ‖B‖₂ from the single-precision Gram matrix
/// like column_block_norm_bound; the word-set bounds assemble B from several words' blocks.
[[nodiscard]] double streamed_norm_bound(
    Index rows, Index cols, const std::function<void(Index r0, Index h, double* out)>& fill);

}  // namespace wordsens
