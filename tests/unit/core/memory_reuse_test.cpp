#include "core/memory_reuse.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace wordsens {
namespace {

#if defined(__GLIBC__)
// A 4 MiB block (a raf batch's working matrices at n = 256 are of this order) comes from the
// heap, and a freed one is handed out again without a new mapping.
TEST(MemoryReuse, MidSizedBlocksStayInTheHeap) {
  ASSERT_TRUE(reuse_freed_memory());
  const std::size_t size = std::size_t{4} << 20;
  static_assert(std::size_t{4} << 20 < kHeapBlockLimit);
  const auto mapped_bytes = [] { return mallinfo2().hblkhd; };
  const std::size_t before = mapped_bytes();
  void* first = std::malloc(size);
  ASSERT_NE(first, nullptr);
  std::memset(first, 1, size);
  EXPECT_EQ(mapped_bytes(), before) << "a 4 MiB block was mapped, not taken from the heap";
  std::free(first);
  const std::size_t kept = mallinfo2().fordblks;
  EXPECT_GE(kept, size) << "the freed block went back to the kernel";
  void* second = std::malloc(size);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(mapped_bytes(), before);
  std::free(second);
}

// Blocks above the limit are still mapped, so a rank's huge matrices return to the kernel.
TEST(MemoryReuse, HugeBlocksAreStillMapped) {
  ASSERT_TRUE(reuse_freed_memory());
  const std::size_t size = 2 * kHeapBlockLimit;
  const std::size_t before = mallinfo2().hblkhd;
  void* block = std::malloc(size);
  ASSERT_NE(block, nullptr);
  EXPECT_GE(mallinfo2().hblkhd, before + size);
  std::free(block);
  EXPECT_EQ(mallinfo2().hblkhd, before);
}
#else
TEST(MemoryReuse, ReportsThatItCannotChooseOutsideGlibc) { EXPECT_FALSE(reuse_freed_memory()); }
#endif

}  // namespace
}  // namespace wordsens
