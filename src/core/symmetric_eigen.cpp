#include "core/symmetric_eigen.hpp"

#include <Eigen/Eigenvalues>

namespace wordsens {
namespace {

template <class MatrixType>
SymmetricEigen<MatrixType> from_solver(const Eigen::SelfAdjointEigenSolver<MatrixType>& solver) {
  SymmetricEigen<MatrixType> out;
  // Copied even when the solver did not converge: the callers that do not check used its output
  // as it stood, and they still get the same numbers.
  out.converged = solver.info() == Eigen::Success;
  out.values = solver.eigenvalues();
  out.vectors = solver.eigenvectors();
  return out;
}

}  // namespace

SymmetricEigen<Eigen::MatrixXd> symmetric_eigen(const Eigen::MatrixXd& A) {
  return from_solver(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A, Eigen::ComputeEigenvectors));
}

SymmetricEigen<Matrix> symmetric_eigen_row_major(const Matrix& A) {
  return from_solver(Eigen::SelfAdjointEigenSolver<Matrix>(A, Eigen::ComputeEigenvectors));
}

SymmetricEigen<Eigen::MatrixXd> tridiagonal_eigen(const Vector& diagonal,
                                                  const Vector& subdiagonal) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver;
  solver.computeFromTridiagonal(diagonal, subdiagonal, Eigen::ComputeEigenvectors);
  return from_solver(solver);
}

}  // namespace wordsens
