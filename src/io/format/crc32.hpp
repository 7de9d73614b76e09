#pragma once
// Internal to io/: zlib's CRC-32 accumulated over byte ranges, as Python's zlib.crc32(data, crc)
// does: the checksums the readers recompute (task_table_crc32, row_crc32) use this one.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace wordsens::io::detail {

class Crc32 {
 public:
  void add(const void* data, std::size_t size) {
    // zlib's crc32 of a null buffer (an empty vector's data()) returns the initial value,
    // whatever the crc so far; Python's of b"" leaves it as it is.
    if (size == 0) return;
    crc_ = crc32_z(crc_, static_cast<const Bytef*>(data), size);
  }
  void add(std::string_view bytes) { add(bytes.data(), bytes.size()); }
  [[nodiscard]] std::uint32_t value() const { return static_cast<std::uint32_t>(crc_); }

 private:
  uLong crc_ = crc32_z(0, nullptr, 0);
};

}  // namespace wordsens::io::detail
