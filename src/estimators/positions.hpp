#pragma once
// Which word positions an estimator examines: all, the first, or m distinct random ones.
#include <cstdint>
#include <string>
#include <vector>

#include "core/gaussian.hpp"
#include "core/types.hpp"

namespace wordsens {

struct PositionSet {
  enum class Kind { all, first, random };
  Kind kind = Kind::all;
  Index count = 0;  // m for Kind::random

  /// Parses "all", "first" or "random:m" (m ≥ 1); throws InputError otherwise.
  static PositionSet parse(const std::string& text);
  [[nodiscard]] std::string to_string() const;

  /// The positions for a text of n words; random ones are drawn from Stream::positions with
  /// entity = task id, sorted ascending. random:m with m ≥ n gives all positions.
  [[nodiscard]] std::vector<Index> resolve(Index n, std::uint32_t master_seed,
                                           std::uint32_t task_id) const;
};

/// m distinct positions of [0, n) (1 ≤ m ≤ n), sorted ascending, by a partial Fisher–Yates
/// shuffle: step j draws uniform entry (0, j) of `id`, so the subset is a pure function of it.
[[nodiscard]] std::vector<Index> random_subset(Index n, Index m, const RandomMatrixId& id);

}  // namespace wordsens
