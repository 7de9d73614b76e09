#pragma once
// Symmetric eigendecompositions, compiled once. Eigen's SelfAdjointEigenSolver costs about 10 s
// of compile time in every translation unit that instantiates it (five did): these functions
// instantiate it in core/symmetric_eigen.cpp only. They compute exactly what the solver computes
// where it was called before (same matrix type, same options), so no result changes.
#include "core/types.hpp"

namespace wordsens {

/// Eigenvalues in ascending order and, column j, the unit eigenvector of value j.
template <class MatrixType>
struct SymmetricEigen {
  bool converged = false;  // the solver's info() == Success
  Vector values;
  MatrixType vectors;
};

/// Eigen's SelfAdjointEigenSolver<Eigen::MatrixXd> of A (its lower triangle is read).
[[nodiscard]] SymmetricEigen<Eigen::MatrixXd> symmetric_eigen(const Eigen::MatrixXd& A);

/// The same for a row-major matrix: the solver of that storage order, whose rounding can differ
/// in the last bits from the column-major one's (kept where row-major results are recorded).
[[nodiscard]] SymmetricEigen<Matrix> symmetric_eigen_row_major(const Matrix& A);

/// The eigenpairs of the symmetric tridiagonal matrix with this diagonal and subdiagonal.
[[nodiscard]] SymmetricEigen<Eigen::MatrixXd> tridiagonal_eigen(const Vector& diagonal,
                                                                const Vector& subdiagonal);

}  // namespace wordsens
