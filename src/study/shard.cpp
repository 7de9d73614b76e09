#include "study/shard.hpp"

#include <charconv>

#include "core/errors.hpp"

namespace wordsens {

Shard Shard::parse(const std::string& text) {
  const auto slash = text.find('/');
  auto number = [&](std::size_t from, std::size_t to, std::uint32_t& out) {
    const auto [ptr, ec] = std::from_chars(text.data() + from, text.data() + to, out);
    return from < to && ec == std::errc() && ptr == text.data() + to;
  };
  Shard shard;
  if (slash == std::string::npos || !number(0, slash, shard.index) ||
      !number(slash + 1, text.size(), shard.count) || shard.count == 0 ||
      shard.index >= shard.count) {
    throw InputError("shard = '" + text + "': expected i/N with 0 <= i < N");
  }
  return shard;
}

std::string Shard::to_string() const { return std::to_string(index) + "/" + std::to_string(count); }

}  // namespace wordsens
