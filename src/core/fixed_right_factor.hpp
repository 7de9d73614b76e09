#pragma once
// A fixed right factor M of many products A·M whose left factor A has few rows (the points of one
// call of an evaluator), laid out once in the panel format of Eigen's own matrix-product kernel,
// so that no call repacks it.
//
// Why: a product with a handful of rows, such as the B × d by d × d products of the trained
// attention (models/trained/trained_attention_update.cpp), spends more time in Eigen's packing of
// the d × d factor, redone on every call, than in its multiply-adds: at B = 8 each packed number
// serves only 8 of them (docs/PERFORMANCE.md, "The transformer family"). The factor here is packed
// when it is made; a call packs only A (rows × depth numbers) and runs on the two the block-panel
// kernel Eigen's own products run, over the whole depth at once.
//
// It uses Eigen's internal packing routines and that kernel, called as Eigen's general matrix
// product calls them; fixed_right_factor_test.cpp checks every call shape against the plain
// product.
#include <vector>

#include "core/types.hpp"

namespace wordsens {

class FixedRightFactor {
 public:
  /// The scratch a call packs its left factor into: the caller's, so that one factor can serve
  /// several evaluators at once.
  using Scratch = std::vector<double, Eigen::aligned_allocator<double>>;
  using ConstRows = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;
  using Rows = Eigen::Map<Matrix, 0, Eigen::OuterStride<>>;

  FixedRightFactor() = default;
  /// M, depth × width.
  explicit FixedRightFactor(const Eigen::Ref<const Matrix>& M);

  [[nodiscard]] Index depth() const { return depth_; }
  [[nodiscard]] Index width() const { return width_; }

  /// C += alpha · A · M[first, first + A.cols()), the rows of M from `first` on: A is rows × k, C
  /// rows × width. Throws std::invalid_argument when the shapes do not fit.
  void multiply_add(const ConstRows& A, Index first, double alpha, Rows C, Scratch& scratch) const;
  /// C = alpha · A · M[first, first + A.cols()).
  void multiply(const ConstRows& A, Index first, double alpha, Rows C, Scratch& scratch) const;

 private:
  Index depth_ = 0, width_ = 0;
  std::vector<double, Eigen::aligned_allocator<double>> packed_;  // Mᵀ in Eigen's lhs panels
};

/// `rows` rows of `cols` numbers, `stride` apart: a left factor A of FixedRightFactor.
[[nodiscard]] inline FixedRightFactor::ConstRows left_rows(const double* data, Index rows,
                                                           Index cols, Index stride) {
  return {data, rows, cols, Eigen::OuterStride<>(stride)};
}
/// The same for a result C.
[[nodiscard]] inline FixedRightFactor::Rows result_rows(double* data, Index rows, Index cols,
                                                        Index stride) {
  return {data, rows, cols, Eigen::OuterStride<>(stride)};
}

}  // namespace wordsens
