// Philox4x32-10 for many counters at once. Random123's function computes one block with scalar
// 32 × 32 → 64-bit multiplications (about 7 ns a block here, as much as the Box–Muller transform
// of its four words). With AVX2 the same rounds run on 8 counters per instruction: vpmuludq gives
// the 64-bit products of the even and odd 32-bit lanes. Integer arithmetic only, so both paths
// give Random123's bits exactly (tested against Philox::block for every lane position and every
// remainder length); the AVX2 path is chosen at run time where the CPU has it, and before it an
// AVX-512 path on 16 counters per instruction where the CPU has that.
#include <immintrin.h>

#include <algorithm>

#include "core/philox.hpp"

#include "core/cpu_features.hpp"

namespace wordsens {
namespace {

constexpr std::uint32_t kMultiplier0 = PHILOX_M4x32_0;
constexpr std::uint32_t kMultiplier1 = PHILOX_M4x32_1;
constexpr std::uint32_t kKeyBump0 = PHILOX_W32_0;
constexpr std::uint32_t kKeyBump1 = PHILOX_W32_1;
constexpr int kRounds = 10;
constexpr Index kLanes = 8;  // 32-bit lanes of a 256-bit register

/// hi and lo words of the 32 × 32 → 64-bit products of each lane of x with m.
__attribute__((target("avx2"))) inline void mulhilo(__m256i x, __m256i m, __m256i& hi,
                                                    __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(x, m);                        // lanes 0, 2, 4, 6
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);  // lanes 1, 3, 5, 7
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

/// Sixteen blocks, counters (c0, c1, c2[lane], c3[lane]) with the lanes' last two words given
/// as two sets of eight, computed as two independent sets so that one set's multiplications run
/// while the other's wait for their results.
__attribute__((target("avx2"), always_inline)) inline void sixteen_blocks(
    std::uint32_t c0, std::uint32_t c1, const __m256i c2[2], const __m256i c3[2],
    std::uint32_t key0, std::uint32_t key1, __m256i out[2][4]) {
  __m256i w[2][4];
  for (int s = 0; s < 2; ++s) {
    w[s][0] = _mm256_set1_epi32(static_cast<int>(c0));
    w[s][1] = _mm256_set1_epi32(static_cast<int>(c1));
    w[s][2] = c2[s];
    w[s][3] = c3[s];
  }
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(kMultiplier0));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(kMultiplier1));
  for (int r = 0; r < kRounds; ++r) {
    const __m256i k0 = _mm256_set1_epi32(static_cast<int>(key0));
    const __m256i k1 = _mm256_set1_epi32(static_cast<int>(key1));
    for (auto& v : w) {
      __m256i hi0, lo0, hi1, lo1;
      mulhilo(v[0], m0, hi0, lo0);
      mulhilo(v[2], m1, hi1, lo1);
      v[0] = _mm256_xor_si256(_mm256_xor_si256(hi1, v[1]), k0);
      v[1] = lo1;
      v[2] = _mm256_xor_si256(_mm256_xor_si256(hi0, v[3]), k1);
      v[3] = lo0;
    }
    key0 += kKeyBump0;
    key1 += kKeyBump1;
  }
  for (int s = 0; s < 2; ++s)
    for (int j = 0; j < 4; ++j) out[s][j] = w[s][j];
}

/// Blocks [0, g) in groups of 16, counters from `lanes` (see CounterRun, CounterList); returns g
/// (the remainder is left to the scalar path).
template <typename Lanes>
__attribute__((target("avx2"))) Index blocks_avx2(const Lanes& lanes, Index count,
                                                  std::uint32_t key0, std::uint32_t key1,
                                                  std::uint32_t* const words[4]) {
  Index g = 0;
  __m256i out[2][4];
  for (; g + 2 * kLanes <= count; g += 2 * kLanes) {
    __m256i c2[2], c3[2];
    for (int s = 0; s < 2; ++s) lanes.avx2(g + kLanes * s, c2[s], c3[s]);
    sixteen_blocks(lanes.c0, lanes.c1, c2, c3, key0, key1, out);
    for (int s = 0; s < 2; ++s) {
      for (int j = 0; j < 4; ++j) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(words[j] + g + kLanes * s), out[s][j]);
      }
    }
  }
  return g;  // the remainder is left to the scalar path
}

constexpr Index kWideLanes = 16;  // 32-bit lanes of a 512-bit register

/// The AVX-512 form of mulhilo: the same products, 16 lanes. The zero-masked forms with a full
/// mask are the plain instructions; the unmasked intrinsics trip GCC 12's -Wmaybe-uninitialized
/// on their undefined pass-through operand.
__attribute__((target("avx512f"))) inline void mulhilo(__m512i x, __m512i m, __m512i& hi,
                                                       __m512i& lo) {
  constexpr __mmask8 kAll = 0xFF;
  const __m512i even = _mm512_maskz_mul_epu32(kAll, x, m);
  const __m512i odd = _mm512_maskz_mul_epu32(kAll, _mm512_maskz_srli_epi64(kAll, x, 32), m);
  hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_maskz_srli_epi64(kAll, even, 32), odd);
  lo = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_maskz_slli_epi64(kAll, odd, 32));
}

/// Thirty-two blocks, counters (c0, c1, c2[lane], c3[lane]), as two independent sets of sixteen.
__attribute__((target("avx512f"), always_inline)) inline void thirty_two_blocks(
    std::uint32_t c0, std::uint32_t c1, const __m512i c2[2], const __m512i c3[2],
    std::uint32_t key0, std::uint32_t key1, __m512i out[2][4]) {
  __m512i w[2][4];
  for (int s = 0; s < 2; ++s) {
    w[s][0] = _mm512_set1_epi32(static_cast<int>(c0));
    w[s][1] = _mm512_set1_epi32(static_cast<int>(c1));
    w[s][2] = c2[s];
    w[s][3] = c3[s];
  }
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(kMultiplier0));
  const __m512i m1 = _mm512_set1_epi32(static_cast<int>(kMultiplier1));
  for (int r = 0; r < kRounds; ++r) {
    const __m512i k0 = _mm512_set1_epi32(static_cast<int>(key0));
    const __m512i k1 = _mm512_set1_epi32(static_cast<int>(key1));
    for (auto& v : w) {
      __m512i hi0, lo0, hi1, lo1;
      mulhilo(v[0], m0, hi0, lo0);
      mulhilo(v[2], m1, hi1, lo1);
      v[0] = _mm512_xor_si512(_mm512_xor_si512(hi1, v[1]), k0);
      v[1] = lo1;
      v[2] = _mm512_xor_si512(_mm512_xor_si512(hi0, v[3]), k1);
      v[3] = lo0;
    }
    key0 += kKeyBump0;
    key1 += kKeyBump1;
  }
  for (int s = 0; s < 2; ++s)
    for (int j = 0; j < 4; ++j) out[s][j] = w[s][j];
}

/// Blocks [0, g) in groups of 32; returns g (the rest is left to the narrower paths).
template <typename Lanes>
__attribute__((target("avx512f"))) Index blocks_avx512(const Lanes& lanes, Index count,
                                                       std::uint32_t key0, std::uint32_t key1,
                                                       std::uint32_t* const words[4]) {
  Index g = 0;
  __m512i out[2][4];
  for (; g + 2 * kWideLanes <= count; g += 2 * kWideLanes) {
    __m512i c2[2], c3[2];
    for (int s = 0; s < 2; ++s) lanes.avx512(g + kWideLanes * s, c2[s], c3[s]);
    thirty_two_blocks(lanes.c0, lanes.c1, c2, c3, key0, key1, out);
    for (int s = 0; s < 2; ++s) {
      for (int j = 0; j < 4; ++j) {
        _mm512_storeu_si512(words[j] + g + kWideLanes * s, out[s][j]);
      }
    }
  }
  return g;
}

/// The counters of Philox::blocks: (c0, c1, c2, c3 + g) for block g.
struct CounterRun {
  std::uint32_t c0, c1, c2, c3;
  [[nodiscard]] Philox::Counter operator[](Index g) const {
    return {c0, c1, c2, c3 + static_cast<std::uint32_t>(g)};
  }
  /// The counters of blocks g, g + 1, …
  [[nodiscard]] CounterRun from(Index g) const {
    return {c0, c1, c2, c3 + static_cast<std::uint32_t>(g)};
  }
  __attribute__((target("avx2"), always_inline)) void avx2(Index g, __m256i& lane_c2,
                                                           __m256i& lane_c3) const {
    lane_c2 = _mm256_set1_epi32(static_cast<int>(c2));
    lane_c3 =
        _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(c3 + static_cast<std::uint32_t>(g))),
                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  __attribute__((target("avx512f"), always_inline)) void avx512(Index g, __m512i& lane_c2,
                                                                __m512i& lane_c3) const {
    lane_c2 = _mm512_set1_epi32(static_cast<int>(c2));
    lane_c3 =
        _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(c3 + static_cast<std::uint32_t>(g))),
                         _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  }
};

/// The counters of Philox::blocks_at: (c0, c1, c2[g], c3[g]) for block g.
struct CounterList {
  std::uint32_t c0, c1;
  const std::uint32_t* c2;
  const std::uint32_t* c3;
  [[nodiscard]] Philox::Counter operator[](Index g) const { return {c0, c1, c2[g], c3[g]}; }
  /// The counters of blocks g, g + 1, …
  [[nodiscard]] CounterList from(Index g) const { return {c0, c1, c2 + g, c3 + g}; }
  __attribute__((target("avx2"), always_inline)) void avx2(Index g, __m256i& lane_c2,
                                                           __m256i& lane_c3) const {
    lane_c2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c2 + g));
    lane_c3 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c3 + g));
  }
  __attribute__((target("avx512f"), always_inline)) void avx512(Index g, __m512i& lane_c2,
                                                                __m512i& lane_c3) const {
    lane_c2 = _mm512_loadu_si512(c2 + g);
    lane_c3 = _mm512_loadu_si512(c3 + g);
  }
};

/// Blocks [0, count) of `lanes` from the widest path the CPU has down to the scalar one.
template <typename Lanes>
void blocks_of(const Philox& philox, const Lanes& lanes, Index count, std::uint32_t key0,
               std::uint32_t key1, std::uint32_t* const words[4]) {
  Index done = cpu_has_avx512f() ? blocks_avx512(lanes, count, key0, key1, words) : 0;
  if (cpu_has_avx2() && done < count) {
    const Lanes rest = lanes.from(done);
    std::uint32_t* const rest_words[4] = {words[0] + done, words[1] + done, words[2] + done,
                                          words[3] + done};
    done += blocks_avx2(rest, count - done, key0, key1, rest_words);
  }
  for (Index g = done; g < count; ++g) {
    const Philox::Block b = philox.block(lanes[g]);
    for (std::size_t j = 0; j < 4; ++j) words[j][g] = b[j];
  }
}

}  // namespace

void Philox::blocks(const Counter& first, Index count, std::uint32_t* __restrict w0,
                    std::uint32_t* __restrict w1, std::uint32_t* __restrict w2,
                    std::uint32_t* __restrict w3) const {
  std::uint32_t* const words[4] = {w0, w1, w2, w3};
  blocks_of(*this, CounterRun{first[0], first[1], first[2], first[3]}, count, key_[0], key_[1],
            words);
}

void Philox::blocks_at(std::uint32_t c0, std::uint32_t c1, const std::uint32_t* c2,
                       const std::uint32_t* c3, Index count, std::uint32_t* __restrict w0,
                       std::uint32_t* __restrict w1, std::uint32_t* __restrict w2,
                       std::uint32_t* __restrict w3) const {
  std::uint32_t* const words[4] = {w0, w1, w2, w3};
  blocks_of(*this, CounterList{c0, c1, c2, c3}, count, key_[0], key_[1], words);
}

}  // namespace wordsens
