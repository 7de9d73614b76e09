#pragma once
// The process's policy for freed memory. The searches free and allocate the same working
// matrices thousands of times per second (a batch shrinks as its ascents stop; Eigen's matrix
// products allocate their packing buffers per call), and each task of a study allocates and frees
// the same large arrays as the task before it (rf's word block V_i, 0.3-0.7 GB at d = 768; gen's
// training texts, 1 GB at n = 120, N = 1300). glibc maps blocks over 128 KiB (32 MiB at most,
// whatever its threshold) afresh and unmaps them on free, so every call and every task paid page
// faults and the zeroing of fresh pages for memory it had just released: more than half of the
// time of raf_relu at n = 256, d = 8 (17.3 s against 7.4 s with the heap), and 14 us per 4 KiB
// page on the virtual machines of the development hosts, 4 s of each 38 s rf gen task at n = 120.
//
// So every block comes from one heap (one arena: a second thread's arena could not hold blocks
// above 64 MiB and would map them), and up to kRetainedFreeMemory of freed memory stays there for
// the next task. The price is a higher peak: blocks of different sizes leave holes (a rank of
// paper_gen peaks at 2.6 GB instead of 2.1 GB; docs/PERFORMANCE.md).
#include <cstddef>

namespace wordsens {

/// Freed memory at the top of the heap is given back to the kernel beyond this much.
inline constexpr std::size_t kRetainedFreeMemory = std::size_t{2000} << 20;

/// Asks the C library to serve every block from one heap, never from its own mapping, and to
/// keep up to kRetainedFreeMemory of freed memory for reuse. Results do not depend on it (same
/// arithmetic, other addresses); returns false where the C library offers no such control (not
/// glibc). Memory glibc cannot get from the heap it still maps (its fallback).
bool reuse_freed_memory();

}  // namespace wordsens
