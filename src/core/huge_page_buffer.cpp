#include "core/huge_page_buffer.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace wordsens {
namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}

HugePageBuffer::HugePageBuffer(std::size_t count) : size_(count) {
  if (count == 0) return;
  // Rounded up to whole huge pages; anonymous mappings are zero and 2 MiB-aligned mappings let
  // every page be a huge one. The advice is only a request: without THP the pages are 4 KiB.
  const std::size_t bytes = (count * sizeof(double) + kHugePage - 1) / kHugePage * kHugePage;
  void* p =
      mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // Trim the mapping to a 2 MiB-aligned start and whole huge pages.
  const auto raw = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t start = (raw + kHugePage - 1) / kHugePage * kHugePage;
  if (start > raw) munmap(p, start - raw);
  const std::uintptr_t end = raw + bytes + kHugePage;
  if (end > start + bytes) munmap(reinterpret_cast<void*>(start + bytes), end - (start + bytes));
#if defined(MADV_HUGEPAGE)
  (void)madvise(reinterpret_cast<void*>(start), bytes, MADV_HUGEPAGE);
#endif
  data_ = std::unique_ptr<double, HugePageUnmap>(reinterpret_cast<double*>(start),
                                                 HugePageUnmap{bytes});
}

void HugePageUnmap::operator()(double* p) const {
  if (p != nullptr) munmap(p, bytes);
}

}  // namespace wordsens
