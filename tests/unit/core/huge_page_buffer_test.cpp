// The buffer behind rf's kept features (core/huge_page_buffer.hpp): zero, 2 MiB-aligned, the
// advice given to the kernel (VmFlags "hg" of its mapping), released when it goes.
#include "core/huge_page_buffer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace wordsens {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

/// The VmFlags line of the mapping that starts at `address` in /proc/self/smaps ("" if none).
std::string vm_flags_of_mapping_at(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= reinterpret_cast<std::uintptr_t>(address) &&
               reinterpret_cast<std::uintptr_t>(address) < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool mapping_exists(const void* address) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> begin >> dash >> end &&
        begin <= reinterpret_cast<std::uintptr_t>(address) &&
        reinterpret_cast<std::uintptr_t>(address) < end) {
      return true;
    }
  }
  return false;
}

TEST(HugePageBuffer, IsZeroAlignedAndWritable) {
  const std::size_t count = 3 * kHugePage / sizeof(double) + 17;  // not whole huge pages
  HugePageBuffer buffer(count);
  ASSERT_EQ(buffer.size(), count);
  ASSERT_FALSE(buffer.empty());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % kHugePage, 0U);
  EXPECT_TRUE(std::all_of(buffer.data(), buffer.data() + count, [](double v) { return v == 0.0; }));
  std::fill(buffer.data(), buffer.data() + count, 1.5);
  EXPECT_EQ(buffer.data()[count - 1], 1.5);
}

TEST(HugePageBuffer, AsksForHugePagesWhereTheKernelOffersThem) {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  HugePageBuffer buffer(4 * kHugePage / sizeof(double));
  const std::string flags = vm_flags_of_mapping_at(buffer.data());
  ASSERT_FALSE(flags.empty()) << "no mapping holds the buffer";
  EXPECT_NE(flags.find(" hg"), std::string::npos) << "madvise(MADV_HUGEPAGE) not given: " << flags;
}

TEST(HugePageBuffer, MovesAndUnmaps) {
  HugePageBuffer empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_TRUE(HugePageBuffer(0).empty());

  HugePageBuffer a(kHugePage / sizeof(double));
  const double* address = a.data();
  HugePageBuffer b = std::move(a);
  EXPECT_EQ(b.data(), address);
  EXPECT_TRUE(mapping_exists(address));
  b = HugePageBuffer();
  EXPECT_TRUE(b.empty());
  EXPECT_FALSE(mapping_exists(address)) << "the memory was not given back";
}

}  // namespace
}  // namespace wordsens
