#pragma once
// Products of a tall row-major matrix A (m × k, m ≫ k, e.g. rf's word block V_i: k·D rows) with a
// few columns, one block of rows at a time. Eigen's GEMM on the whole of A packs it in a layout
// that makes C = A·D 15× slower than B separate matrix–vector products at m = 46080, k = 768,
// B = 4; row blocks of kTallRows keep each packed block in cache, and A is read once per call.
#include <algorithm>

#include "core/types.hpp"

namespace wordsens {

inline constexpr Index kTallRows = 512;

/// out ← A·D (m × B) for D (k × B).
inline void tall_product(const Matrix& A, const Eigen::MatrixXd& D, Eigen::MatrixXd& out) {
  out.resize(A.rows(), D.cols());
  for (Index r = 0; r < A.rows(); r += kTallRows) {
    const Index h = std::min(kTallRows, A.rows() - r);
    out.middleRows(r, h).noalias() = A.middleRows(r, h) * D;
  }
}

/// out ← Aᵀ·R (k × B) for R (m × B).
template <typename Out>
void tall_transpose_product(const Matrix& A, const Eigen::MatrixXd& R, Out&& out) {
  out.setZero();
  for (Index r = 0; r < A.rows(); r += kTallRows) {
    const Index h = std::min(kTallRows, A.rows() - r);
    out.noalias() += A.middleRows(r, h).transpose() * R.middleRows(r, h);
  }
}

}  // namespace wordsens
