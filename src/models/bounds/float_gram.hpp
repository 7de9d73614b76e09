#pragma once
// A certified upper bound on ‖B‖₂ for a tall matrix B (rows streamed in, never stored) from a
// Gram matrix formed with single-precision products, every rounding error accounted for: the Gram
// matrix costs about half the double one (block_norm.cpp), and with the generation of B's rows
// (unchanged) a word of rf at k = 115200, d = 768 takes 1.3 s instead of 2.0 s (thread CPU time
// on the development machine). rf's S_upper uses it for the words whose double spectrum the
// guided start did not already need (models/rf/rf.cpp).
//
// How B's rows are used. Rows arrive in double; each is rounded to float, B̂ = fl32(B), and
// packed. Every kChunkRows rows, Ĝ += B̂_cᵀB̂_c over the chunk, by our own kernel (float_gram.cpp):
// each entry of an 8 × 48 tile of Ĝ is accumulated in a float register over at most
// kSumRows = h consecutive rows, starting from zero; that partial sum is converted to double
// (exactly) and added to a double tile sum, which is added to the double accumulator Ĝ after the
// chunk. Only the lower triangle is kept.
//
// The bound, with u_f = 2⁻²⁴, u = 2⁻⁵³, N = rows·cols, T = the number of float partial sums added
// into one entry of Ĝ plus the number of chunks (≤ 2·rows/h + 2):
//
//   ‖B‖₂ ≤ ‖B̂‖₂ + ‖B − B̂‖₂,   ‖B̂‖₂ = √λ_max(B̂ᵀB̂),
//   λ_max(B̂ᵀB̂) ≤ λ_max(Ĝ) + ‖Ĝ − B̂ᵀB̂‖₂                      (Weyl)
//
//  1. ‖B − B̂‖₂ ≤ ‖B − B̂‖_F ≤ u_f·‖B‖_F + 2⁻¹⁵⁰·√N ("entry_error"): rounding a double to float
//     changes it by at most u_f relative, or 2⁻¹⁵⁰ absolute below 2⁻¹²⁶ (subnormal floats).
//  2. ‖Ĝ − B̂ᵀB̂‖₂ ≤ c_G·‖B̂‖_F² + 2·cols·rows·2⁻¹⁴⁹ ("gram_error"), c_G = γ_h(u_f) + γ_T(u)·(1 +
//     γ_h(u_f)). Each float partial sum ŝ of at most h products (fused multiply-adds or separate
//     multiplications and additions, whichever the build's SIMD has) satisfies |ŝ − s| ≤
//     γ_h(u_f)·Σ|b̂_rj b̂_rl| plus at most 2⁻¹⁴⁹ per operation that underflows; the double sums of
//     the partial sums are one sum of T terms in some order: error ≤ γ_T(u)·Σ|ŝ|. Summed over
//     the partial sums: |Ĝ − B̂ᵀB̂| ≤ c_G·|B̂|ᵀ|B̂| + 2·rows·2⁻¹⁴⁹ entrywise, and for non-negative
//     bounds ‖E‖₂ ≤ ‖F‖₂ whenever |E| ≤ F, with ‖|B̂|ᵀ|B̂|‖₂ = ‖|B̂|‖₂² ≤ ‖B̂‖_F² and ‖B̂‖_F ≤
//     (1 + u_f)‖B‖_F + 2⁻¹⁵⁰√N (the same rounding as in term 1). This is a
//     worst-case bound for any order of the h products: it grows like γ_h·cols relative to λ
//     (the errors of all entries could align with the all-ones direction), which is why h is
//     small. At cols = 768, k = 115200 rows of N(0, 1/D) it is ≈ 6e-4 of ‖B‖₂; at cols ≤ 64,
//     below 1e-4.
//  3. λ_max(Ĝ) by the Cholesky certificate of models/bounds/spectral_certificate.hpp.
//  4. ‖B‖_F² is accumulated in double from the double entries as they arrive, a sum of N
//     squares in some order: rounded up by 1 + 2γ_N(u). The final combination of the terms by
//     rounding::up.
// Overflow cannot happen for the weights this code handles; a non-finite entry throws.
#include <vector>

#include <Eigen/Core>

#include "core/types.hpp"

namespace wordsens {

struct FloatGramBound {
  double norm_upper = 0.0;        // U ≥ ‖B‖₂, certified
  double lambda_hat_upper = 0.0;  // certified ≥ λ_max(Ĝ)
  double gram_error = 0.0;        // ≥ ‖Ĝ − B̂ᵀB̂‖₂ (term 2)
  double entry_error = 0.0;       // ≥ ‖B − B̂‖₂ (term 1)
};

/// Which kernel forms Ĝ. Both give the same bits where the build has FMA; `portable` is for
/// the test that checks it.
enum class GramKernel { fastest, portable };

class FloatGram {
 public:
  /// h: float products summed in a register before the partial sum goes to double.
  static constexpr Index kSumRows = 32;
  /// Rows packed per multiplication (each multiplication reads and writes the d × d accumulator).
  static constexpr Index kChunkRows = 512;

  /// B̂ is packed in column panels of kPanelCols floats and row panels of kPanelRows; a kernel
  /// call forms one kPanelRows × kPanelCols tile of Ĝ.
  static constexpr Index kPanelRows = 8;
  static constexpr Index kPanelCols = 48;

  explicit FloatGram(Index cols, GramKernel kernel = GramKernel::fastest);

  /// True where this process runs the AVX-512 kernel for GramKernel::fastest (an x86-64 build
  /// with FMA on a CPU with AVX-512F); otherwise the build's own SIMD is used.
  [[nodiscard]] static bool wide_kernel_available();
  /// The build has the AVX-512 kernel (whether or not this CPU can run it).
  [[nodiscard]] static bool wide_kernel_compiled();
  [[nodiscard]] bool uses_wide_kernel() const { return wide_; }

  /// Appends `count` rows of B, row r at data + r·stride (row-major doubles).
  void add_rows(const double* data, Index count, Index stride);
  /// The certified bound for all rows added so far (more rows may be added afterwards).
  [[nodiscard]] FloatGramBound bound();
  /// Forgets all rows (keeps the buffers).
  void reset();

  [[nodiscard]] Index rows() const { return rows_; }
  [[nodiscard]] Index cols() const { return cols_; }
  /// Ĝ (symmetric, cols × cols) for the rows added so far; for tests.
  [[nodiscard]] Eigen::MatrixXd gram();
  /// c_G of term 2 for the rows added so far (for tests).
  [[nodiscard]] double gram_error_factor() const;

 private:
  void multiply_pending();

  Index cols_;
  Index padded_;  // cols rounded up to the panel width (padding columns are zero)
  bool wide_;     // the AVX-512 kernel
  Index rows_ = 0;
  Index pending_ = 0;        // rows converted but not yet multiplied
  Index partial_sums_ = 0;   // float partial sums added into each entry of Ĝ so far
  Index chunks_ = 0;         // multiplications done
  double frobenius2_ = 0.0;  // ‖B‖_F² in double
  Matrix G_;                 // Ĝ, lower triangle (row-major)
  std::vector<float, Eigen::aligned_allocator<float>> a_pack_, b_pack_;
};

}  // namespace wordsens
