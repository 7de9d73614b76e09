#pragma once
// Zero-initialised memory for one large array written once per task, from pages the kernel may
// back with transparent huge pages (2 MiB) where it offers them on request (THP "madvise"). On
// the virtual machines this suite is developed on a page fault costs tens of microseconds, so
// filling a fresh gigabyte in 4 KiB pages took seconds; in 2 MiB pages it takes 512 times fewer
// faults. The contents are the same either way: only where the numbers live changes.
#include <cstddef>
#include <memory>
#include <utility>

namespace wordsens {

/// Unmaps a HugePageBuffer's mapping of `bytes`.
struct HugePageUnmap {
  std::size_t bytes = 0;
  void operator()(double* p) const;
};

class HugePageBuffer {
 public:
  HugePageBuffer() = default;
  /// `count` doubles, aligned to 2 MiB, zero; throws std::bad_alloc when the memory is not there.
  explicit HugePageBuffer(std::size_t count);
  HugePageBuffer(HugePageBuffer&& other) noexcept
      : data_(std::move(other.data_)), size_(std::exchange(other.size_, 0)) {}
  HugePageBuffer& operator=(HugePageBuffer&& other) noexcept {
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }

  [[nodiscard]] double* data() { return data_.get(); }
  [[nodiscard]] const double* data() const { return data_.get(); }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }

 private:
  std::unique_ptr<double, HugePageUnmap> data_;
  std::size_t size_ = 0;
};

}  // namespace wordsens
