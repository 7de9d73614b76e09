#include "estimators/positions.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/gaussian.hpp"

namespace wordsens {
namespace {

constexpr const char* kRandomPrefix = "random:";

[[noreturn]] void bad_positions(const std::string& text) {
  throw InputError("bad position set '" + text + "' (expected all, first or random:m with m >= 1)");
}

}  // namespace

PositionSet PositionSet::parse(const std::string& text) {
  if (text == "all") return {Kind::all, 0};
  if (text == "first") return {Kind::first, 0};
  const std::string prefix = kRandomPrefix;
  if (text.size() > prefix.size() && text.compare(0, prefix.size(), prefix) == 0) {
    const char* begin = text.data() + prefix.size();
    const char* end = text.data() + text.size();
    long long m = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, m);
    if (ec == std::errc() && ptr == end && m >= 1) return {Kind::random, static_cast<Index>(m)};
  }
  bad_positions(text);
}

std::string PositionSet::to_string() const {
  switch (kind) {
    case Kind::all:
      return "all";
    case Kind::first:
      return "first";
    case Kind::random:
      return kRandomPrefix + std::to_string(count);
  }
  return "all";
}

std::vector<Index> PositionSet::resolve(Index n, std::uint32_t master_seed,
                                        std::uint32_t task_id) const {
  if (n < 1) throw std::invalid_argument("a text needs at least one word (n >= 1)");
  if (kind == Kind::first) return {0};
  if (kind == Kind::all || count >= n) {
    std::vector<Index> positions(static_cast<std::size_t>(n));
    std::iota(positions.begin(), positions.end(), Index{0});
    return positions;
  }
  if (count < 1) throw std::invalid_argument("random:m needs m >= 1");
  return random_subset(n, count, {Philox(master_seed, Stream::positions), task_id, 0});
}

std::vector<Index> random_subset(Index n, Index m, const RandomMatrixId& id) {
  if (m < 1 || m > n) throw std::invalid_argument("random_subset: need 1 <= m <= n");
  std::vector<Index> positions(static_cast<std::size_t>(n));
  std::iota(positions.begin(), positions.end(), Index{0});
  // Partial Fisher–Yates: after step j the first j + 1 entries are a uniform random
  // (j + 1)-subset. Uniform j drives step j, so the result is a pure function of the key.
  for (Index j = 0; j < m; ++j) {
    const Index remaining = n - j;
    auto offset = static_cast<Index>(uniform_entry(id, 0, j) * static_cast<double>(remaining));
    offset = std::min(offset, remaining - 1);  // guards the (unreachable) u·r == r rounding
    std::swap(positions[static_cast<std::size_t>(j)],
              positions[static_cast<std::size_t>(j + offset)]);
  }
  positions.resize(static_cast<std::size_t>(m));
  std::sort(positions.begin(), positions.end());
  return positions;
}

}  // namespace wordsens
