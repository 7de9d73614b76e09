#include "core/memory_reuse.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <thread>

#include <sys/resource.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace wordsens {
namespace {

#if defined(__GLIBC__)
std::size_t minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::size_t>(usage.ru_minflt);
}

// Blocks of every size (a 4 MiB raf batch, a 64 MiB block above glibc's largest mapping
// threshold, from this thread or another) come from the heap, and a freed one is handed out
// again without a new mapping and without faulting its pages in again.
void expect_reused_without_faults(std::size_t size) {
  const auto mapped_bytes = [] { return mallinfo2().hblkhd; };
  const std::size_t before = mapped_bytes();
  void* first = std::malloc(size);
  ASSERT_NE(first, nullptr);
  std::memset(first, 1, size);
  EXPECT_EQ(mapped_bytes(), before) << size << " bytes were mapped, not taken from the heap";
  std::free(first);
  EXPECT_GE(mallinfo2().fordblks, size) << "the freed block went back to the kernel";
  const std::size_t faults = minor_faults();
  void* second = std::malloc(size);
  ASSERT_NE(second, nullptr);
  std::memset(second, 2, size);
  EXPECT_EQ(mapped_bytes(), before);
  // A fresh block would fault once per 4 KiB page (16384 for 64 MiB).
  EXPECT_LT(minor_faults() - faults, size / 4096 / 16) << "the reused block faulted again";
  std::free(second);
}

TEST(MemoryReuse, FreedBlocksOfAnySizeAreReusedWithoutFaults) {
  ASSERT_TRUE(reuse_freed_memory());
  expect_reused_without_faults(std::size_t{4} << 20);
  expect_reused_without_faults(std::size_t{64} << 20);
}

TEST(MemoryReuse, AnotherThreadsBlocksComeFromTheSameHeap) {
  ASSERT_TRUE(reuse_freed_memory());
  std::thread worker([] { expect_reused_without_faults(std::size_t{96} << 20); });
  worker.join();
}
#else
TEST(MemoryReuse, ReportsThatItCannotChooseOutsideGlibc) { EXPECT_FALSE(reuse_freed_memory()); }
#endif

}  // namespace
}  // namespace wordsens
