#pragma once
// `--shard i/N` (job arrays): shard i runs the tasks whose index in the task table is ≡ i
// (mod N). Round-robin rather than contiguous slices, because the table is ordered by grid point
// and cost grows along it: every shard gets a similar mix of cheap and expensive tasks. The
// shards are disjoint and cover the table.
#include <cstdint>
#include <string>

namespace wordsens {

struct Shard {
  std::uint32_t index = 0;
  std::uint32_t count = 1;

  /// Parses "i/N" with 0 ≤ i < N; throws InputError (one line) otherwise.
  static Shard parse(const std::string& text);
  [[nodiscard]] bool contains(std::uint32_t task_index) const {
    return task_index % count == index;
  }
  [[nodiscard]] bool is_whole() const { return count == 1; }
  [[nodiscard]] std::string to_string() const;
};

}  // namespace wordsens
