#pragma once
// A certified upper bound on the spectral norm of a column block of a Gaussian weight matrix
// (rf: ‖V_i‖₂, SPEC §3's S_upper), streamed so that the block is never stored.
#include "core/gaussian.hpp"
#include "core/types.hpp"

namespace wordsens {

struct BlockSpectrum {
  double norm_upper = 0.0;     // U ≥ ‖B‖₂, certified (see block_norm.cpp)
  double norm_estimate = 0.0;  // √λ̂_max, the computed value itself
  Vector top_right_vector;     // unit top eigenvector of BᵀB (the top right-singular vector of B)
};

/// B = V.window(0, col0, rows, cols). Memory O(cols² + kGramChunk·cols); cost rows·cols² flops
/// for the Gram matrix plus O(cols³) for its eigen-decomposition.
[[nodiscard]] BlockSpectrum column_block_spectrum(const GaussianMatrix& V, Index rows, Index col0,
                                                  Index cols);

}  // namespace wordsens
