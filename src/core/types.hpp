#pragma once
// Shared numeric types. Samples are row-major so that vec(X) (docs/METHOD.md §1: row-major
// flattening, word i at entries [i·d, (i+1)·d)) is a plain view of the matrix storage.
#include <Eigen/Core>

namespace wordsens {

using Index = Eigen::Index;
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXd;
using RowVector = Eigen::RowVectorXd;

/// vec(X): the row-major flattening of a sample, as a read-only view (no copy).
inline Eigen::Map<const Vector> vec(const Matrix& X) { return {X.data(), X.size()}; }

}  // namespace wordsens
