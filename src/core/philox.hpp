#pragma once
// Counter-based randomness (docs/METHOD.md §9), after HOOMD-blue's RandomNumbers.h: Philox4x32-10
// keyed by (master seed, stream id), with a 128-bit counter (entity, matrix, row, column group).
// Every random number is a pure function of (key, counter), so any entry of any random matrix can
// be regenerated anywhere, in any order, by any rank, with the same bits.
#include <Random123/philox.h>

#include <array>
#include <cstdint>

#include "core/types.hpp"

#include "core/streams.hpp"

namespace wordsens {

/// Philox4x32-10 with a fixed key (master seed, stream). `block(c)` returns four independent
/// 32-bit words for the counter c. The master seed is 32 bits wide because Philox4x32's key is
/// 64 bits and the other half names the stream.
class Philox {
 public:
  using Block = std::array<std::uint32_t, 4>;
  using Counter = std::array<std::uint32_t, 4>;

  Philox(std::uint32_t master_seed, Stream stream)
      : key_{{master_seed, static_cast<std::uint32_t>(stream)}} {}

  [[nodiscard]] Block block(const Counter& counter) const {
    const r123::Philox4x32::ctr_type c = {{counter[0], counter[1], counter[2], counter[3]}};
    const auto out = r123::Philox4x32()(c, key_);
    return {out[0], out[1], out[2], out[3]};
  }

  /// The blocks of the `count` counters (c0, c1, c2, c3 + g), g = 0 … count − 1, word j of block
  /// g into words[j][g]: bitwise block() of each, computed for many counters at once so that the
  /// multiplications run in SIMD lanes (philox.cpp). c3 + g must not pass 2³² − 1.
  void blocks(const Counter& first, Index count, std::uint32_t* __restrict w0,
              std::uint32_t* __restrict w1, std::uint32_t* __restrict w2,
              std::uint32_t* __restrict w3) const;

  /// The blocks of the `count` counters (c0, c1, c2[g], c3[g]), word j of block g into
  /// words[j][g]: bitwise block() of each, in SIMD lanes like blocks(), for counters that do not
  /// follow one another (the short rows of a random matrix window, several rows per call).
  void blocks_at(std::uint32_t c0, std::uint32_t c1, const std::uint32_t* c2,
                 const std::uint32_t* c3, Index count, std::uint32_t* __restrict w0,
                 std::uint32_t* __restrict w1, std::uint32_t* __restrict w2,
                 std::uint32_t* __restrict w3) const;

  [[nodiscard]] std::uint32_t master_seed() const { return key_[0]; }
  [[nodiscard]] Stream stream() const { return static_cast<Stream>(key_[1]); }

 private:
  r123::Philox4x32::key_type key_;
};

/// 32 random bits → a double uniform in the open interval (0, 1): (u + 0.5)·2⁻³².
/// Never 0 or 1, so log() in Box–Muller is finite.
inline double open_unit_interval(std::uint32_t bits) {
  return (static_cast<double>(bits) + 0.5) * (1.0 / 4294967296.0);
}

}  // namespace wordsens
