#include "core/memory_reuse.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace wordsens {

bool reuse_freed_memory() {
#if defined(__GLIBC__)
  // Setting either value also turns off glibc's own adaptive threshold, which rises only as far
  // as the largest block freed so far and so keeps mapping the first few sizes it meets.
  return mallopt(M_MMAP_THRESHOLD, static_cast<int>(kHeapBlockLimit)) == 1 &&
         mallopt(M_TRIM_THRESHOLD, static_cast<int>(kRetainedFreeMemory)) == 1;
#else
  return false;
#endif
}

}  // namespace wordsens
