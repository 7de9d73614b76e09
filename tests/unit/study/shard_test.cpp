#include "study/shard.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"

namespace wordsens {
namespace {

TEST(Shard, PartitionIsDisjointAndCovering) {
  for (const std::uint32_t count : {1u, 2u, 3u, 7u}) {
    std::vector<int> hits(100, 0);
    for (std::uint32_t i = 0; i < count; ++i) {
      const Shard s = Shard::parse(std::to_string(i) + "/" + std::to_string(count));
      for (std::uint32_t t = 0; t < hits.size(); ++t) hits[t] += s.contains(t) ? 1 : 0;
    }
    for (const int h : hits) EXPECT_EQ(h, 1);
  }
  for (const char* bad : {"", "1", "2/2", "0/0", "-1/2", "a/b", "1/2/3", "1/", "/2"}) {
    EXPECT_THROW((void)Shard::parse(bad), InputError) << bad;
  }
  EXPECT_EQ(Shard::parse("3/8").to_string(), "3/8");
}

}  // namespace
}  // namespace wordsens
