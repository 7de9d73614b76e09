#include "models/shared/hidden_layers.hpp"

#include <algorithm>
#include <utility>

#include "models/shared/activation.hpp"

namespace wordsens {
namespace {

// Up to this many points a layer product is done without a GEMM: Eigen's GEMM packs all of the
// k × k layer for every call, which at a few columns costs as much as the product itself (37 %
// of a drf task at n = 20, d = 192, L = 8, four points per call).
constexpr Index kFewColumns = 8;
// Rows of a layer per block of the few-column products: 384 KB of doubles, so a block read from
// memory stays in L2 while every column uses it.
constexpr Index kBlockDoubles = 49152;

Index block_rows(Index cols) { return std::clamp<Index>(kBlockDoubles / cols, 1, 64); }

/// out ← W·H for H with few columns: each column is a dot product with each row of W, row block
/// by row block (W read from memory once).
void multiply_few(const Matrix& W, const Matrix& H, Matrix& out) {
  const Eigen::MatrixXd columns = H;  // each point contiguous
  Eigen::MatrixXd product(W.rows(), H.cols());
  const Index rows = block_rows(W.cols());
  for (Index r = 0; r < W.rows(); r += rows) {
    const Index h = std::min(rows, W.rows() - r);
    product.middleRows(r, h).noalias() = W.middleRows(r, h).lazyProduct(columns);
  }
  out = product;
}

/// G ← Wᵀ·G for G with few columns: G's rows scale W's rows, summed (W read once).
void multiply_transposed_few(const Matrix& W, Matrix& G) {
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(W.cols(), G.cols());
  for (Index i = 0; i < W.rows(); ++i) {
    const auto w = W.row(i).transpose();
    for (Index b = 0; b < G.cols(); ++b) sum.col(b) += G(i, b) * w;
  }
  G = sum;
}

}  // namespace

HiddenLayerBatch::HiddenLayerBatch(Activation act, std::span<const Matrix> hidden)
    : act_(act), hidden_(hidden), Z_(hidden.size() + 1), H_(hidden.size() + 1) {}

Matrix& HiddenLayerBatch::forward(Matrix first) {
  Z_[0] = std::move(first);
  H_[0] = Z_[0];
  activate_in_place(act_, H_[0]);
  for (std::size_t l = 1; l < Z_.size(); ++l) {
    if (H_[l - 1].cols() <= kFewColumns) {
      multiply_few(hidden_[l - 1], H_[l - 1], Z_[l]);
    } else {
      Z_[l].noalias() = hidden_[l - 1] * H_[l - 1];
    }
    H_[l] = Z_[l];
    activate_in_place(act_, H_[l]);
  }
  return H_.back();
}

void HiddenLayerBatch::backward(Matrix& G) const {
  for (std::size_t l = Z_.size(); l-- > 0;) {
    multiply_by_derivative(act_, Z_[l], G);
    if (l == 0) continue;
    if (G.cols() <= kFewColumns) {
      multiply_transposed_few(hidden_[l - 1], G);
    } else {
      G = hidden_[l - 1].transpose() * G;
    }
  }
}

void HiddenLayerBatch::sensitivity_objective(Matrix first, const Vector& base, Vector& values,
                                             Matrix* gradient) {
  Matrix& R = forward(std::move(first));  // φ(Δ_b) − base, column b
  R.colwise() -= base;
  values = R.colwise().squaredNorm().transpose();
  if (gradient == nullptr) return;
  *gradient = 2.0 * R;  // ∂f/∂φ
  backward(*gradient);
}

}  // namespace wordsens
