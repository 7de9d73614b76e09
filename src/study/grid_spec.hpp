#pragma once
// Grid specifications of the configuration (`n = 10,20,50`, `n = 10:250:log7`, `k = 1.0D`):
// parsed once, into sorted, deduplicated values, so that two spellings of the same grid give
// the same task table (and the same canonical configuration text).
#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace wordsens {

/// Parses an integer grid: comma-separated items, each a number or a range
///   `lo:hi:logM`  M log-spaced values from lo to hi (both included), rounded to integers;
///   `lo:hi:linM`  M evenly spaced values from lo to hi, rounded;
///   `lo:hi:stepS` lo, lo+S, … up to hi.
/// The result is sorted ascending and deduplicated. Every value must lie in [min, max].
/// Throws InputError with a one-line message (naming `key`) for malformed, empty or
/// out-of-range grids.
[[nodiscard]] std::vector<Index> parse_int_grid(const std::string& key, const std::string& text,
                                                Index min, Index max);

/// Parses comma-separated fractions in (0, 1] (items trimmed as in a grid), sorted ascending
/// and deduplicated. Throws InputError (one line naming `key`) for an empty item or a
/// value outside (0, 1].
[[nodiscard]] std::vector<double> parse_fraction_list(const std::string& key,
                                                      const std::string& text);

/// One item of a k grid: an absolute width, or a multiple of D = n·d (`1.0D`, `2D`, `0.5D`).
struct KItem {
  bool relative = false;  // true: k = round(factor · D)
  double factor = 0.0;    // when relative
  Index value = 0;        // when absolute

  /// k for a text of n words of dimension d: round(factor·n·d), which may be 0 (plan_tasks
  /// refuses a width below 1 rather than run another one than asked).
  [[nodiscard]] Index resolve(Index n, Index d) const;
  /// Canonical spelling: `1D`, `0.5D`, or the integer.
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const KItem&, const KItem&) = default;
};

/// Parses a k grid: comma-separated items, each `<factor>D` (factor > 0) or an integer grid
/// item as in parse_int_grid (numbers and ranges). Relative items come first (ascending
/// factor), then absolute ones (ascending), deduplicated. Throws InputError. (`<factor>d` is
/// read as `<factor>D` too, as it always was: k scales with D = n·d.)
[[nodiscard]] std::vector<KItem> parse_k_grid(const std::string& text, Index max_k);

/// One item of the MLP width grid (`mlp-width`, block's MLP): an absolute width, or a multiple
/// of the embedding dimension d (`4d`, `0.5d`), the way transformers size their MLPs. Not a
/// multiple of D = n·d: a block's MLP acts on each word's row alone.
struct MlpWidthItem {
  bool relative = false;  // true: width = round(factor · d)
  double factor = 0.0;    // when relative
  Index value = 0;        // when absolute

  /// The width at embedding dimension d: round(factor·d), which may be 0 (refused by plan_tasks).
  [[nodiscard]] Index resolve(Index d) const;
  /// Canonical spelling: `4d`, `0.5d`, or the integer.
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const MlpWidthItem&, const MlpWidthItem&) = default;
};

/// Parses an MLP width grid: comma-separated items, each `<factor>d` (factor > 0) or an integer
/// grid item as in parse_int_grid. Relative items first (ascending factor), then absolute ones
/// (ascending), deduplicated. `<factor>D` is refused with a line saying why. Throws InputError.
[[nodiscard]] std::vector<MlpWidthItem> parse_mlp_width_grid(const std::string& text,
                                                             Index max_width);

/// Parses a comma-separated list of names, each of which must be in `allowed`; the result
/// follows the order of `allowed` (canonical), without duplicates. Throws for an unknown or
/// empty list, naming `key`.
[[nodiscard]] std::vector<std::string> parse_name_list(const std::string& key,
                                                       const std::string& text,
                                                       const std::vector<std::string>& allowed);

/// Joins values with commas (the canonical text of a grid).
[[nodiscard]] std::string join_grid(const std::vector<Index>& values);
[[nodiscard]] std::string join_grid(const std::vector<KItem>& values);
[[nodiscard]] std::string join_grid(const std::vector<MlpWidthItem>& values);
[[nodiscard]] std::string join_names(const std::vector<std::string>& names);

/// Shortest text that parses back to exactly `value` (for canonical configuration text).
[[nodiscard]] std::string format_double(double value);

}  // namespace wordsens
