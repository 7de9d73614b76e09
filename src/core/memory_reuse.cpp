#include "core/memory_reuse.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace wordsens {

bool reuse_freed_memory() {
#if defined(__GLIBC__)
  // M_MMAP_MAX = 0 alone is not enough: a thread's own arena (the compute thread's) grows in
  // mapped heaps of 64 MiB and maps any larger block whatever M_MMAP_MAX says, so one arena.
  return mallopt(M_ARENA_MAX, 1) == 1 && mallopt(M_MMAP_MAX, 0) == 1 &&
         mallopt(M_TRIM_THRESHOLD, static_cast<int>(kRetainedFreeMemory)) == 1;
#else
  return false;
#endif
}

}  // namespace wordsens
