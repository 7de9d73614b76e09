#include "core/gaussian.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace wordsens {
namespace {

constexpr Index kGroup = 4;  // normals per Philox block

void check_index_range(Index row0, Index rows, Index col0, Index cols) {
  constexpr Index kLimit = Index{1} << 32;
  if (row0 < 0 || col0 < 0 || rows < 0 || cols < 0 || row0 + rows > kLimit ||
      col0 + cols > kLimit) {
    throw std::out_of_range("random matrix window exceeds the 32-bit row/column counter range");
  }
}

/// The four standard normals of one Philox block (two Box–Muller pairs).
inline void four_normals(const Philox::Block& bits, double out[4]) {
  constexpr double kTwoPi = 2.0 * std::numbers::pi;
  for (int pair = 0; pair < 2; ++pair) {
    const double radius = std::sqrt(-2.0 * std::log(open_unit_interval(bits[2 * pair])));
    const double angle = kTwoPi * open_unit_interval(bits[2 * pair + 1]);
    out[2 * pair] = radius * std::cos(angle);
    out[2 * pair + 1] = radius * std::sin(angle);
  }
}

inline Philox::Counter counter_of(const RandomMatrixId& id, Index row, Index group) {
  return {id.entity, id.matrix, static_cast<std::uint32_t>(row), static_cast<std::uint32_t>(group)};
}

}  // namespace

double GaussianMatrix::operator()(Index row, Index col) const {
  check_index_range(row, 1, col, 1);
  double normals[kGroup];
  four_normals(id_.rng.block(counter_of(id_, row, col / kGroup)), normals);
  return stddev_ * normals[col % kGroup];
}

void GaussianMatrix::fill(Index row0, Index col0, Index rows, Index cols, double* out,
                          Index out_row_stride) const {
  check_index_range(row0, rows, col0, cols);
  if (rows == 0 || cols == 0) return;
  const Index first_group = col0 / kGroup;
  const Index last_group = (col0 + cols - 1) / kGroup;
  double normals[kGroup];
  for (Index r = 0; r < rows; ++r) {
    double* out_row = out + r * out_row_stride;
    for (Index g = first_group; g <= last_group; ++g) {
      four_normals(id_.rng.block(counter_of(id_, row0 + r, g)), normals);
      const Index begin = std::max(g * kGroup, col0);
      const Index end = std::min((g + 1) * kGroup, col0 + cols);
      for (Index c = begin; c < end; ++c) out_row[c - col0] = stddev_ * normals[c - g * kGroup];
    }
  }
}

Matrix GaussianMatrix::window(Index row0, Index col0, Index rows, Index cols) const {
  Matrix out(rows, cols);
  fill(row0, col0, rows, cols, out.data(), cols);
  return out;
}

Vector GaussianMatrix::row_segment(Index row, Index col0, Index count) const {
  Vector out(count);
  fill(row, col0, 1, count, out.data(), count);
  return out;
}

double uniform_entry(const RandomMatrixId& id, Index row, Index col) {
  check_index_range(row, 1, col, 1);
  return open_unit_interval(id.rng.block(counter_of(id, row, col / kGroup))[col % kGroup]);
}

}  // namespace wordsens
