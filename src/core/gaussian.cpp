#include "core/gaussian.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "core/box_muller.hpp"

namespace wordsens {
namespace {

constexpr Index kGroup = 4;          // normals per Philox block
constexpr Index kChunkGroups = 256;  // blocks transformed per vectorised batch (fits in L1)

void check_index_range(Index row0, Index rows, Index col0, Index cols) {
  constexpr Index kLimit = Index{1} << 32;
  if (row0 < 0 || col0 < 0 || rows < 0 || cols < 0 || row0 + rows > kLimit ||
      col0 + cols > kLimit) {
    throw std::out_of_range("random matrix window exceeds the 32-bit row/column counter range");
  }
}

inline Philox::Counter counter_of(const RandomMatrixId& id, Index row, Index group) {
  return {id.entity, id.matrix, static_cast<std::uint32_t>(row), static_cast<std::uint32_t>(group)};
}

/// Philox words of `count` consecutive blocks of one row, split by role (structure of arrays).
void philox_words(const RandomMatrixId& id, Index row, Index first_group, Index count,
                  std::uint32_t* __restrict radius0, std::uint32_t* __restrict angle0,
                  std::uint32_t* __restrict radius1, std::uint32_t* __restrict angle1) {
  id.rng.blocks(counter_of(id, row, first_group), count, radius0, angle0, radius1, angle1);
}

/// Box–Muller over arrays of words: one branch-free loop that the compiler vectorises.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void box_muller_words(
    const std::uint32_t* __restrict radius_words, const std::uint32_t* __restrict angle_words,
    Index count, double* __restrict z_cos, double* __restrict z_sin) {
  for (Index g = 0; g < count; ++g) {
    box_muller::normal_pair(radius_words[g], angle_words[g], z_cos[g], z_sin[g]);
  }
}

/// Normals of the `count` ≤ kChunkGroups blocks whose Philox words are in `words`, scaled, into
/// out (4·count values, entry 4g + j is normal j of block g). Box–Muller works entry by entry,
/// so every normal's bits depend only on its own block, never on the batch it is transformed in.
void normals_of_words(const std::array<std::uint32_t, kChunkGroups> (&words)[4], Index count,
                      double scale, double* out) {
  std::array<double, kChunkGroups> z[4];
  box_muller_words(words[0].data(), words[1].data(), count, z[0].data(), z[1].data());
  box_muller_words(words[2].data(), words[3].data(), count, z[2].data(), z[3].data());
  for (Index g = 0; g < count; ++g) {
    for (Index j = 0; j < kGroup; ++j) out[g * kGroup + j] = scale * z[j][g];
  }
}

/// Normals of `count` ≤ kChunkGroups consecutive blocks (groups first_group …) of one row.
void row_normals(const RandomMatrixId& id, Index row, Index first_group, Index count, double scale,
                 double* out) {
  std::array<std::uint32_t, kChunkGroups> words[4];
  philox_words(id, row, first_group, count, words[0].data(), words[1].data(), words[2].data(),
               words[3].data());
  normals_of_words(words, count, scale, out);
}

/// Normals of blocks [first_group, first_group + groups) of rows [row, row + rows), rows·groups
/// ≤ kChunkGroups, row after row into out. Short rows (a word's d columns of rf's weights) are
/// transformed together: one row of 25 normals alone would leave the vectorised Box–Muller loop
/// to its scalar remainder.
void rows_normals(const RandomMatrixId& id, Index row, Index rows, Index first_group, Index groups,
                  double scale, double* out) {
  std::array<std::uint32_t, kChunkGroups> row_words{}, group_words{};  // counter words 2, 3
  for (Index r = 0; r < rows; ++r) {
    for (Index g = 0; g < groups; ++g) {
      row_words[static_cast<std::size_t>(r * groups + g)] = static_cast<std::uint32_t>(row + r);
      group_words[static_cast<std::size_t>(r * groups + g)] =
          static_cast<std::uint32_t>(first_group + g);
    }
  }
  std::array<std::uint32_t, kChunkGroups> words[4];
  id.rng.blocks_at(id.entity, id.matrix, row_words.data(), group_words.data(), rows * groups,
                   words[0].data(), words[1].data(), words[2].data(), words[3].data());
  normals_of_words(words, rows * groups, scale, out);
}

}  // namespace

double GaussianMatrix::operator()(Index row, Index col) const {
  check_index_range(row, 1, col, 1);
  double normals[kGroup];
  row_normals(id_, row, col / kGroup, 1, stddev_, normals);
  return normals[col % kGroup];
}

void GaussianMatrix::fill(Index row0, Index col0, Index rows, Index cols, double* out,
                          Index out_row_stride) const {
  check_index_range(row0, rows, col0, cols);
  if (rows == 0 || cols == 0) return;
  const Index first_group = col0 / kGroup;
  const Index end_group = (col0 + cols - 1) / kGroup + 1;
  const Index groups = end_group - first_group;
  const Index skip = col0 - first_group * kGroup;  // columns of the first block before col0
  std::array<double, kChunkGroups * kGroup> buffer;
  if (2 * groups <= kChunkGroups) {  // short rows: several per batch
    const Index batch = kChunkGroups / groups;
    // Whole blocks into rows stored back to back: the normals go straight to out (the copy
    // through the buffer was 2-5 % of an rf task, memmove of every generated entry).
    const bool direct = skip == 0 && cols == groups * kGroup && out_row_stride == cols;
    for (Index r0 = 0; r0 < rows; r0 += batch) {
      const Index h = std::min(batch, rows - r0);
      if (direct) {
        rows_normals(id_, row0 + r0, h, first_group, groups, stddev_, out + r0 * out_row_stride);
        continue;
      }
      rows_normals(id_, row0 + r0, h, first_group, groups, stddev_, buffer.data());
      for (Index r = 0; r < h; ++r) {
        const double* row_normals_begin = buffer.data() + r * groups * kGroup + skip;
        std::copy(row_normals_begin, row_normals_begin + cols, out + (r0 + r) * out_row_stride);
      }
    }
    return;
  }
  for (Index r = 0; r < rows; ++r) {
    double* out_row = out + r * out_row_stride;
    for (Index g0 = first_group; g0 < end_group; g0 += kChunkGroups) {
      const Index count = std::min(kChunkGroups, end_group - g0);
      const Index begin = std::max(g0 * kGroup, col0);
      const Index end = std::min((g0 + count) * kGroup, col0 + cols);
      if (begin == g0 * kGroup && end == (g0 + count) * kGroup) {  // whole blocks: no copy
        row_normals(id_, row0 + r, g0, count, stddev_, out_row + (begin - col0));
        continue;
      }
      row_normals(id_, row0 + r, g0, count, stddev_, buffer.data());
      std::copy(buffer.data() + (begin - g0 * kGroup), buffer.data() + (end - g0 * kGroup),
                out_row + (begin - col0));
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
