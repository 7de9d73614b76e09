// The single-precision Gram kernel and the certified bound of float_gram.hpp.
//
// Why our own kernel and not Eigen's float rank update: the error bound needs each float sum to
// run over at most h = 32 rows before it reaches double precision. With Eigen that means a rank
// update of 32 rows into a zeroed float matrix and a d × d addition after every 32 rows: measured
// 1.3 s per word at k = 115200, d = 768 against 0.8–0.9 s here, where the partial sums go to
// double from registers. Two kernels: a portable one written with Eigen's packet primitives, so
// it uses whatever SIMD the build targets (AVX2 + FMA on x86-64-v3: 4 × 24 tiles, 12
// accumulators; SSE2 otherwise), and, chosen at run time on a CPU with AVX-512F, one 8 × 48 tile
// in 24 zmm accumulators. The error analysis covers all of them (fused or separate multiply and
// add, any summation order of the partial sums).
#include "models/bounds/float_gram.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/cpu_features.hpp"
#include "models/bounds/rounding.hpp"
#include "models/bounds/spectral_certificate.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace wordsens {
namespace {

using PacketF = Eigen::internal::packet_traits<float>::type;
constexpr int kPacket = Eigen::internal::packet_traits<float>::size;
constexpr Index kPanelRows = FloatGram::kPanelRows;  // rows j of a row panel of B̂ (broadcast)
constexpr Index kPanelCols = FloatGram::kPanelCols;  // columns l of a column panel (vector loads)
constexpr int kTileRows = 4;                         // rows j of the portable kernel's tile
constexpr int kTilePackets = 3;                      // packets per row of that tile
constexpr int kTileCols = kTilePackets * kPacket;
static_assert(kPanelRows % kTileRows == 0 && kPanelCols % kTileCols == 0,
              "the portable tiles must cover a panel pair exactly");
static_assert(kPanelCols % kPanelRows == 0, "a row panel must lie inside one column panel");

/// tile (kPanelRows × kPanelCols doubles, row-major) ← Σ_r a_rᵀ b_r over `rows` packed rows,
/// each partial sum over ≤ FloatGram::kSumRows rows formed in float and then added in double.
/// a: kPanelRows floats per row; b: kPanelCols floats per row (both contiguous).
///
/// Every entry's float partial sum is the same chain of fused multiply-adds over the same rows
/// in the same order, one SIMD lane per entry, whatever the vector width: the portable kernel
/// (build's SIMD, 4 × 3 packets at a time) and the AVX-512 one (the whole 8 × 48 tile) give the
/// same bits wherever the build has FMA (tests/unit/models/float_gram_test.cpp checks it).
void tile_product_portable(const float* a, const float* b, Index rows, double* tile) {
  std::fill(tile, tile + kPanelRows * kPanelCols, 0.0);
  for (Index j0 = 0; j0 < kPanelRows; j0 += kTileRows) {
    for (Index l0 = 0; l0 < kPanelCols; l0 += kTileCols) {
      for (Index s0 = 0; s0 < rows; s0 += FloatGram::kSumRows) {
        const Index count = std::min(FloatGram::kSumRows, rows - s0);
        PacketF acc[kTileRows][kTilePackets];
        for (auto& row : acc) {
          for (auto& p : row) p = Eigen::internal::pset1<PacketF>(0.0f);
        }
        const float* ar = a + s0 * kPanelRows + j0;
        const float* br = b + s0 * kPanelCols + l0;
        for (Index r = 0; r < count; ++r, ar += kPanelRows, br += kPanelCols) {
          PacketF bv[kTilePackets];
          for (int p = 0; p < kTilePackets; ++p)
            bv[p] = Eigen::internal::ploadu<PacketF>(br + p * kPacket);
          for (int j = 0; j < kTileRows; ++j) {
            const PacketF av = Eigen::internal::pset1<PacketF>(ar[j]);
            for (int p = 0; p < kTilePackets; ++p)
              acc[j][p] = Eigen::internal::pmadd(av, bv[p], acc[j][p]);
          }
        }
        alignas(64) float partial[kTileRows * kTileCols];
        for (int j = 0; j < kTileRows; ++j) {
          for (int p = 0; p < kTilePackets; ++p) {
            Eigen::internal::pstore(partial + j * kTileCols + p * kPacket, acc[j][p]);
          }
        }
        for (int j = 0; j < kTileRows; ++j) {
          double* t = tile + (j0 + j) * kPanelCols + l0;
          for (int l = 0; l < kTileCols; ++l)
            t[l] += static_cast<double>(partial[j * kTileCols + l]);
        }
      }
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && defined(__FMA__)
// The whole 8 × 48 tile in 24 zmm accumulators: on a CPU with 512-bit FMA units twice the work
// per instruction of the AVX2 kernel. Only where the build itself fuses (FMA), so that both
// kernels round alike; chosen at run time (x86-64-v3 builds run on CPUs without AVX-512).
constexpr bool kHasWideKernel = true;
static_assert(kPanelCols == 48 && kPanelRows == 8, "the AVX-512 kernel is written for 8 × 48");

__attribute__((target("avx512f"))) void tile_product_avx512(const float* a, const float* b,
                                                            Index rows, double* tile) {
  for (Index q = 0; q < kPanelRows * kPanelCols; q += 8) {
    _mm512_storeu_pd(tile + q, _mm512_setzero_pd());
  }
  for (Index s0 = 0; s0 < rows; s0 += FloatGram::kSumRows) {
    const Index count = std::min(FloatGram::kSumRows, rows - s0);
    __m512 acc[8][3];
    for (auto& row : acc) {
      for (auto& p : row) p = _mm512_setzero_ps();
    }
    const float* ar = a + s0 * kPanelRows;
    const float* br = b + s0 * kPanelCols;
    for (Index r = 0; r < count; ++r, ar += kPanelRows, br += kPanelCols) {
      const __m512 b0 = _mm512_loadu_ps(br), b1 = _mm512_loadu_ps(br + 16),
                   b2 = _mm512_loadu_ps(br + 32);
      for (int j = 0; j < 8; ++j) {
        const __m512 av = _mm512_set1_ps(ar[j]);
        acc[j][0] = _mm512_fmadd_ps(av, b0, acc[j][0]);
        acc[j][1] = _mm512_fmadd_ps(av, b1, acc[j][1]);
        acc[j][2] = _mm512_fmadd_ps(av, b2, acc[j][2]);
      }
    }
    // Each float partial sum to double (exact), added to its entry of the tile. The zero-masked
    // forms with a full mask are the plain instructions; the unmasked intrinsics trip GCC 12's
    // -Wmaybe-uninitialized on their undefined pass-through operand.
    for (int j = 0; j < 8; ++j) {
      for (int p = 0; p < 3; ++p) {
        double* t = tile + j * kPanelCols + p * 16;
        const __m512d bits = _mm512_castps_pd(acc[j][p]);
        const __m256 low = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, bits, 0));
        const __m256 high = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, bits, 1));
        _mm512_storeu_pd(t, _mm512_add_pd(_mm512_loadu_pd(t), _mm512_maskz_cvtps_pd(0xFF, low)));
        _mm512_storeu_pd(t + 8,
                         _mm512_add_pd(_mm512_loadu_pd(t + 8), _mm512_maskz_cvtps_pd(0xFF, high)));
      }
    }
  }
}

#else
constexpr bool kHasWideKernel = false;
void tile_product_avx512(const float*, const float*, Index, double*) {}
#endif

}  // namespace

bool FloatGram::wide_kernel_available() { return kHasWideKernel && cpu_has_avx512f(); }

bool FloatGram::wide_kernel_compiled() { return kHasWideKernel; }

FloatGram::FloatGram(Index cols, GramKernel kernel)
    : cols_(cols),
      padded_((cols + kPanelCols - 1) / kPanelCols * kPanelCols),
      wide_(kernel == GramKernel::fastest && wide_kernel_available()),
      G_(Matrix::Zero(cols, cols)),
      a_pack_(static_cast<std::size_t>(padded_ * kChunkRows), 0.0f),
      b_pack_(static_cast<std::size_t>(padded_ * kChunkRows), 0.0f) {
  if (cols < 1) throw std::invalid_argument("FloatGram: no columns");
}

void FloatGram::reset() {
  rows_ = pending_ = partial_sums_ = chunks_ = 0;
  frobenius2_ = 0.0;
  G_.setZero();
}

void FloatGram::add_rows(const double* data, Index count, Index stride) {
  using RowsMap = Eigen::Map<const Matrix, Eigen::Unaligned, Eigen::OuterStride<Eigen::Dynamic>>;
  frobenius2_ +=
      RowsMap(data, count, cols_, Eigen::OuterStride<Eigen::Dynamic>(stride)).squaredNorm();
  // Rounded to float straight into the column panels of kPanelCols (row r at offset r·kPanelCols);
  // the padding columns of the last panel are never written, so they stay zero.
  const Index col_panels = padded_ / kPanelCols;
  for (Index r = 0; r < count; ++r) {
    const double* row = data + r * stride;
    for (Index pb = 0; pb < col_panels; ++pb) {
      const Index c0 = pb * kPanelCols, width = std::min<Index>(kPanelCols, cols_ - c0);
      float* out = b_pack_.data() + (pb * kChunkRows + pending_) * kPanelCols;
      for (Index c = 0; c < width; ++c) out[c] = static_cast<float>(row[c0 + c]);
    }
    if (++pending_ == kChunkRows) multiply_pending();
  }
  rows_ += count;
}

void FloatGram::multiply_pending() {
  const Index count = pending_;
  if (count == 0) return;
  // Row panels of kPanelRows, copied out of the column panels.
  const Index col_panels = padded_ / kPanelCols, row_panels = padded_ / kPanelRows;
  for (Index pa = 0; pa < row_panels; ++pa) {
    const Index j0 = pa * kPanelRows;
    const float* source =
        b_pack_.data() + (j0 / kPanelCols) * kPanelCols * kChunkRows + j0 % kPanelCols;
    float* panel = a_pack_.data() + pa * kPanelRows * kChunkRows;
    for (Index r = 0; r < count; ++r) {
      // A fixed-size copy the compiler turns into one vector move (std::copy_n called memmove).
      for (Index q = 0; q < kPanelRows; ++q) panel[r * kPanelRows + q] = source[r * kPanelCols + q];
    }
  }
  alignas(64) double tile[kPanelRows * kPanelCols];
  for (Index pa = 0; pa < row_panels; ++pa) {
    const Index j0 = pa * kPanelRows;
    if (j0 >= cols_) break;
    const float* a = a_pack_.data() + pa * kPanelRows * kChunkRows;
    for (Index pb = 0; pb * kPanelCols < j0 + kPanelRows && pb < col_panels; ++pb) {
      const Index l0 = pb * kPanelCols;
      const float* b = b_pack_.data() + pb * kPanelCols * kChunkRows;
      if (wide_) {
        tile_product_avx512(a, b, count, tile);
      } else {
        tile_product_portable(a, b, count, tile);
      }
      for (Index j = j0; j < std::min(j0 + kPanelRows, cols_); ++j) {
        double* g = G_.data() + j * cols_ + l0;
        const double* t = tile + (j - j0) * kPanelCols;
        const Index width = std::min({l0 + kPanelCols, cols_, j + 1}) - l0;
        for (Index l = 0; l < width; ++l) g[l] += t[l];
      }
    }
  }
  partial_sums_ += (count + kSumRows - 1) / kSumRows;
  ++chunks_;
  pending_ = 0;
}

double FloatGram::gram_error_factor() const {
  const double gh = rounding::gamma(static_cast<double>(kSumRows), rounding::kUnitFloat);
  const double terms = static_cast<double>(partial_sums_ + chunks_ + 2);
  return gh + rounding::gamma(terms, rounding::kUnitDouble) * (1.0 + gh);
}

Eigen::MatrixXd FloatGram::gram() {
  multiply_pending();
  Eigen::MatrixXd G = G_;
  for (Index j = 0; j < cols_; ++j) {
    for (Index l = j + 1; l < cols_; ++l) G(j, l) = G(l, j);
  }
  return G;
}

FloatGramBound FloatGram::bound() {
  multiply_pending();
  FloatGramBound out;
  if (rows_ == 0) return out;
  if (!std::isfinite(frobenius2_)) throw std::domain_error("FloatGram: non-finite entry");
  const double u = rounding::kUnitDouble, uf = rounding::kUnitFloat;
  const double rd = static_cast<double>(rows_), cd = static_cast<double>(cols_);
  const double N = rd * cd;
  const double frobenius_b = std::sqrt(frobenius2_ * (1.0 + 2.0 * rounding::gamma(N, u)));
  const double subnormal_rounding = std::ldexp(1.0, -150) * std::sqrt(N);
  const double frobenius_hat = (1.0 + uf) * frobenius_b + subnormal_rounding;  // ≥ ‖B̂‖_F
  out.entry_error = rounding::up(uf * frobenius_b + subnormal_rounding);
  out.gram_error = rounding::up(gram_error_factor() * frobenius_hat * frobenius_hat +
                                2.0 * cd * rd * rounding::kUnderflowFloat);
  Eigen::MatrixXd G = G_;  // lower triangle used
  out.lambda_hat_upper = certify_lambda_max(std::move(G)).upper;
  const double lambda_up = std::max(out.lambda_hat_upper + out.gram_error, 0.0);
  out.norm_upper = rounding::up(std::sqrt(lambda_up) + out.entry_error);
  return out;
}

}  // namespace wordsens
