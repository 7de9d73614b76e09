#pragma once
// The preactivation a = V vec(X) of the latest sample, shared by rf's two samplers: features(X)
// followed by at_position(X, i) for every examined i then costs one computation, not n + 1.
// Samples are compared bitwise; thread-safe, so const model methods stay callable concurrently.
#include <cstring>
#include <mutex>
#include <optional>

#include "core/types.hpp"

namespace wordsens {

class LastSampleCache {
 public:
  /// The stored vector if X is bitwise the stored sample.
  [[nodiscard]] std::optional<Vector> find(const Matrix& X) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (X_.rows() == X.rows() && X_.cols() == X.cols() &&
        std::memcmp(X_.data(), X.data(), sizeof(double) * static_cast<std::size_t>(X.size())) ==
            0) {
      return value_;
    }
    return std::nullopt;
  }

  void store(const Matrix& X, const Vector& value) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    X_ = X;
    value_ = value;
  }

 private:
  mutable std::mutex mutex_;
  mutable Matrix X_;
  mutable Vector value_;
};

}  // namespace wordsens
