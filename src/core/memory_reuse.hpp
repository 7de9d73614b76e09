#pragma once
// The process's policy for freed memory. The searches free and allocate the same working
// matrices thousands of times per second (a batch shrinks as its ascents stop; Eigen's matrix
// products allocate their packing buffers per call). glibc hands blocks over 128 KiB to the
// kernel on free and maps them again on the next request, so each call paid page faults and
// the zeroing of fresh pages for memory it had just released: more than half of the time of
// raf_relu at n = 256, d = 8 (17.3 s against 7.4 s with this policy).
#include <cstddef>

namespace wordsens {

/// Blocks up to this size come from the heap and stay there when freed.
inline constexpr std::size_t kHeapBlockLimit = std::size_t{32} << 20;
/// Freed memory at the top of a heap is given back to the kernel beyond this much.
inline constexpr std::size_t kRetainedFreeMemory = std::size_t{128} << 20;

/// Asks the C library to serve blocks below kHeapBlockLimit from its heap and to keep up to
/// kRetainedFreeMemory of freed memory for reuse. Results do not depend on it (same arithmetic,
/// other addresses); returns false where the C library offers no such control (not glibc).
bool reuse_freed_memory();

}  // namespace wordsens
