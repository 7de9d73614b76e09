#pragma once
// Random matrices whose entries are pure functions of (key, entity, matrix id, row, column):
// any rectangular window can be generated on its own and has the same bits as the same window
// cut from the whole matrix. Entry (r, c) is normal number c mod 4 of Philox block
// (entity, matrix, r, c / 4); Box–Muller turns the block's four words into four normals.
#include <cstdint>

#include "core/philox.hpp"
#include "core/types.hpp"

namespace wordsens {

/// Identifies one conceptually unbounded random matrix: a stream's generator plus the first two
/// counter words. Rows and columns are 32-bit indices.
struct RandomMatrixId {
  Philox rng;
  std::uint32_t entity;  // e.g. the task id (weights) or the trial (samples)
  std::uint32_t matrix;  // e.g. the layer, or the sample index within a trial
};

/// Gaussian matrix with iid N(0, stddev²) entries.
class GaussianMatrix {
 public:
  GaussianMatrix(RandomMatrixId id, double stddev) : id_(id), stddev_(stddev) {}

  /// One entry (slow path; for tests and spot checks).
  [[nodiscard]] double operator()(Index row, Index col) const;

  /// Writes the rows × cols window starting at (row0, col0) into `out`, row-major with
  /// `out_row_stride` doubles between rows.
  void fill(Index row0, Index col0, Index rows, Index cols, double* out,
            Index out_row_stride) const;

  /// The window as a new row-major matrix.
  [[nodiscard]] Matrix window(Index row0, Index col0, Index rows, Index cols) const;

  /// Row `row`, columns [col0, col0 + count), as a vector.
  [[nodiscard]] Vector row_segment(Index row, Index col0, Index count) const;

  [[nodiscard]] double stddev() const { return stddev_; }

 private:
  RandomMatrixId id_;
  double stddev_;
};

/// Uniform (0, 1) numbers with the same addressing (word c mod 4 of block (entity, matrix, r,
/// c/4)).
[[nodiscard]] double uniform_entry(const RandomMatrixId& id, Index row, Index col);

}  // namespace wordsens
