#include "core/fixed_right_factor.hpp"

#include <stdexcept>
#include <string>

namespace wordsens {
namespace {

// In Eigen's column-major terms a product C = A·M of row-major matrices is Cᵀ = Mᵀ·Aᵀ, and every
// row-major matrix is its own transpose in column-major order: Mᵀ is the kernel's left-hand side
// (packed once, here), Aᵀ its right-hand side (packed per call) and Cᵀ its result.
using Traits = Eigen::internal::gebp_traits<double, double>;
using ColMapper = Eigen::internal::const_blas_data_mapper<double, Index, Eigen::ColMajor>;
using ResultMapper =
    Eigen::internal::blas_data_mapper<double, Index, Eigen::ColMajor, Eigen::Unaligned, 1>;

}  // namespace

FixedRightFactor::FixedRightFactor(const Eigen::Ref<const Matrix>& M)
    : depth_(M.rows()), width_(M.cols()) {
  const Eigen::MatrixXd left = M.transpose();  // width × depth, column-major
  packed_.resize(static_cast<std::size_t>(left.size()));
  Eigen::internal::gemm_pack_lhs<double, Index, ColMapper, Traits::mr, Traits::LhsProgress,
                                 Traits::LhsPacket4Packing, Eigen::ColMajor>
      pack;
  pack(packed_.data(), ColMapper(left.data(), left.rows()), depth_, width_);
}

void FixedRightFactor::multiply_add(const ConstRows& A, Index first, double alpha, Rows C,
                                    Scratch& scratch) const {
  const Index k = A.cols(), rows = A.rows();
  if (first < 0 || first + k > depth_ || C.cols() != width_ || C.rows() != rows) {
    throw std::invalid_argument("FixedRightFactor: a " + std::to_string(rows) + " × " +
                                std::to_string(k) + " factor from row " + std::to_string(first) +
                                " into " + std::to_string(C.rows()) + " × " +
                                std::to_string(C.cols()) + " does not fit " +
                                std::to_string(depth_) + " × " + std::to_string(width_));
  }
  if (rows == 0 || k == 0 || width_ == 0) return;
  scratch.resize(static_cast<std::size_t>(k * rows));
  Eigen::internal::gemm_pack_rhs<double, Index, ColMapper, Traits::nr, Eigen::ColMajor> pack;
  pack(scratch.data(), ColMapper(A.data(), A.outerStride()), k, rows);
  Eigen::internal::gebp_kernel<double, double, Index, ResultMapper, Traits::mr, Traits::nr, false,
                               false>
      kernel;
  // The packed panels of Mᵀ hold all depth_ columns: stride depth_, starting at column `first`.
  kernel(ResultMapper(C.data(), C.outerStride()), packed_.data(), scratch.data(), width_, k, rows,
         alpha, depth_, k, first, 0);
}

void FixedRightFactor::multiply(const ConstRows& A, Index first, double alpha, Rows C,
                                Scratch& scratch) const {
  C.setZero();
  multiply_add(A, first, alpha, C, scratch);
}

}  // namespace wordsens
