#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/gaussian.hpp"

namespace wordsens {
namespace {

GaussianMatrix test_matrix(std::uint32_t entity = 7, std::uint32_t matrix = 3) {
  return GaussianMatrix({Philox(12345, Stream::weights), entity, matrix}, 0.5);
}

TEST(Philox, SameCounterSameBitsDifferentKeyDifferentBits) {
  const Philox a(1, Stream::weights), b(1, Stream::weights), c(2, Stream::weights),
      s(1, Stream::samples);
  EXPECT_EQ(a.block({1, 2, 3, 4}), b.block({1, 2, 3, 4}));
  EXPECT_NE(a.block({1, 2, 3, 4}), c.block({1, 2, 3, 4}));
  EXPECT_NE(a.block({1, 2, 3, 4}), s.block({1, 2, 3, 4}));
  EXPECT_NE(a.block({1, 2, 3, 4}), a.block({1, 2, 3, 5}));
}

TEST(Philox, BatchedBlocksEqualOneBlockAtATimeBitwise) {
  // Every lane position of the SIMD batches (AVX-512 groups of 32, then AVX2 groups of 16, then
  // one block at a time), remainders of every length, and a last counter word near 2³² − 1, for
  // two keys.
  for (const Philox rng : {Philox(12345, Stream::weights), Philox(0xFFFFFFFFU, Stream::samples)}) {
    for (const Index count :
         {Index{0}, Index{1}, Index{3}, Index{15}, Index{16}, Index{17}, Index{31}, Index{32},
          Index{33}, Index{48}, Index{49}, Index{64}, Index{100}}) {
      for (const std::uint32_t start : {0U, 7U, 0xFFFFFFFFU - 200U}) {
        const Philox::Counter first{3, 0xDEADBEEFU, 42, start};
        std::vector<std::uint32_t> w[4];
        for (auto& words : w) words.assign(static_cast<std::size_t>(count) + 1, 0xABCDU);
        rng.blocks(first, count, w[0].data(), w[1].data(), w[2].data(), w[3].data());
        for (Index g = 0; g < count; ++g) {
          const auto block =
              rng.block({first[0], first[1], first[2], start + static_cast<std::uint32_t>(g)});
          for (std::size_t j = 0; j < 4; ++j) {
            ASSERT_EQ(w[j][static_cast<std::size_t>(g)], block[j])
                << "count " << count << " start " << start << " block " << g << " word " << j;
          }
        }
        for (const auto& words : w) EXPECT_EQ(words.back(), 0xABCDU);  // nothing written past
      }
    }
  }
}

TEST(Philox, ListedCountersEqualOneBlockAtATimeBitwise) {
  // blocks_at with counters that do not follow one another (rows and columns of short windows,
  // and arbitrary words), over the same SIMD batch lengths as above.
  const Philox rng(12345, Stream::weights);
  for (const Index count : {Index{0}, Index{1}, Index{7}, Index{16}, Index{31}, Index{32},
                            Index{33}, Index{49}, Index{64}, Index{100}}) {
    std::vector<std::uint32_t> c2(static_cast<std::size_t>(count)), c3(c2.size());
    for (Index g = 0; g < count; ++g) {
      c2[static_cast<std::size_t>(g)] = static_cast<std::uint32_t>(1000 + g / 7);
      c3[static_cast<std::size_t>(g)] = static_cast<std::uint32_t>(g % 7) * 0x9E3779B9U;
    }
    std::vector<std::uint32_t> w[4];
    for (auto& words : w) words.assign(static_cast<std::size_t>(count) + 1, 0xABCDU);
    rng.blocks_at(5, 0xDEADBEEFU, c2.data(), c3.data(), count, w[0].data(), w[1].data(),
                  w[2].data(), w[3].data());
    for (Index g = 0; g < count; ++g) {
      const auto i = static_cast<std::size_t>(g);
      const auto block = rng.block({5, 0xDEADBEEFU, c2[i], c3[i]});
      for (std::size_t j = 0; j < 4; ++j) {
        ASSERT_EQ(w[j][i], block[j]) << "count " << count << " block " << g << " word " << j;
      }
    }
    for (const auto& words : w) EXPECT_EQ(words.back(), 0xABCDU);  // nothing written past
  }
}

TEST(GaussianMatrix, ShortRowWindowsEqualTheWideWindowAndSingleEntriesBitwise) {
  // Windows whose rows span at most half a batch of blocks are generated several rows at a time
  // (rf's word blocks: k rows of d columns); each must equal the same window cut from a wide one
  // (generated row by row) and the entries one at a time, for widths and offsets off the 4-normal
  // groups, row counts that fill batches partly, and a row stride; without the stride, windows of
  // whole groups (col0 and cols multiples of 4) are written straight into out, the others
  // through the buffer.
  const auto V = test_matrix();
  const Matrix wide = V.window(3, 0, 70, 600);
  for (const Index cols : {Index{1}, Index{5}, Index{25}, Index{64}, Index{127}, Index{128}}) {
    for (const Index col0 : {Index{0}, Index{3}, Index{100}, Index{101}}) {
      for (const Index rows : {Index{1}, Index{2}, Index{9}, Index{70}}) {
        Matrix out = Matrix::Constant(rows, cols + 2, -7.0);
        V.fill(3, col0, rows, cols, out.data(), cols + 2);
        const Matrix expected = wide.block(0, col0, rows, cols);
        ASSERT_EQ(0, std::memcmp(Matrix(out.leftCols(cols)).data(), expected.data(),
                                 sizeof(double) * static_cast<std::size_t>(expected.size())))
            << rows << " x " << cols << " at column " << col0;
        EXPECT_TRUE((out.rightCols(2).array() == -7.0).all()) << "written past the window";
        EXPECT_EQ(out(rows - 1, cols - 1), V(3 + rows - 1, col0 + cols - 1));
        Matrix packed = Matrix::Constant(rows + 1, cols, -7.0);
        V.fill(3, col0, rows, cols, packed.data(), cols);
        ASSERT_EQ(0, std::memcmp(packed.data(), expected.data(),
                                 sizeof(double) * static_cast<std::size_t>(expected.size())))
            << rows << " x " << cols << " at column " << col0 << ", no stride";
        EXPECT_TRUE((packed.bottomRows(1).array() == -7.0).all()) << "written past the window";
      }
    }
  }
}

TEST(GaussianMatrix, WholeEqualsStitchedRowBlocksAndColumnBlocksBitwise) {
  const auto V = test_matrix();
  const Index rows = 37, cols = 53;  // deliberately not multiples of the 4-normal group
  const Matrix whole = V.window(0, 0, rows, cols);

  Matrix by_rows(rows, cols);
  for (Index r0 = 0; r0 < rows; r0 += 5) {
    const Index h = std::min<Index>(5, rows - r0);
    by_rows.middleRows(r0, h) = V.window(r0, 0, h, cols);
  }
  Matrix by_cols(rows, cols);
  for (Index c0 = 0; c0 < cols; c0 += 7) {  // odd widths: windows start off group boundaries
    const Index w = std::min<Index>(7, cols - c0);
    by_cols.middleCols(c0, w) = V.window(0, c0, rows, w);
  }
  // Reverse order of generation must not matter either.
  Matrix reversed(rows, cols);
  for (Index r = rows - 1; r >= 0; --r) reversed.row(r) = V.row_segment(r, 0, cols).transpose();

  EXPECT_EQ(0, std::memcmp(whole.data(), by_rows.data(), sizeof(double) * whole.size()));
  EXPECT_EQ(0, std::memcmp(whole.data(), by_cols.data(), sizeof(double) * whole.size()));
  EXPECT_EQ(0, std::memcmp(whole.data(), reversed.data(), sizeof(double) * whole.size()));
  for (Index r = 0; r < rows; r += 9)
    for (Index c = 0; c < cols; c += 11) EXPECT_EQ(whole(r, c), V(r, c));
}

TEST(GaussianMatrix, LongRowWindowsEqualSingleEntriesOnAndOffTheGroups) {
  // Rows of more than half a batch of blocks are generated row by row, in chunks of whole blocks
  // written straight into the row and, at a window's ragged ends, through the buffer.
  const auto V = test_matrix();
  for (const Index col0 : {Index{0}, Index{2}, Index{1024}}) {
    for (const Index cols : {Index{600}, Index{1030}, Index{2048}}) {
      const Matrix W = V.window(5, col0, 2, cols);
      for (Index r = 0; r < 2; ++r) {
        for (const Index c : {Index{0}, Index{1}, Index{511}, cols / 2 + 1, cols - 2, cols - 1}) {
          EXPECT_EQ(W(r, c), V(5 + r, col0 + c)) << col0 << " " << cols << " " << c;
        }
      }
    }
  }
}

TEST(GaussianMatrix, BitsArePinnedOnEveryBuildAndCpu) {
  // FNV-1a of the bits of three windows (one off the 4-normal groups, one at counters near 2³²).
  // The value was computed by the first, scalar generator (Random123's Philox one block at a time,
  // AVX2 Box–Muller) at -march=x86-64 and x86-64-v3; every later path (SIMD Philox, AVX-512
  // Box–Muller) and every CPU must reproduce it, or stored weights would change.
  std::uint64_t hash = 1469598103934665603ULL;
  const auto mix = [&hash](const Matrix& M) {
    for (Index i = 0; i < M.size(); ++i) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, M.data() + i, sizeof bits);
      for (int b = 0; b < 8; ++b) {
        hash ^= (bits >> (8 * b)) & 0xFFU;
        hash *= 1099511628211ULL;
      }
    }
  };
  const GaussianMatrix V({Philox(20241126, Stream::weights), 17, 2}, 0.125);
  mix(V.window(0, 0, 100, 1000));
  mix(V.window(12345, 77, 3, 45));
  mix(V.window(4000000000LL, 4294967000LL, 2, 290));
  EXPECT_EQ(hash, 0xfa0373d2909857b9ULL);
}

TEST(GaussianMatrix, FillHonoursRowStride) {
  const auto V = test_matrix();
  Matrix big = Matrix::Zero(4, 10);
  V.fill(2, 3, 4, 6, big.data() + 2, 10);
  EXPECT_EQ(big.block(0, 2, 4, 6), V.window(2, 3, 4, 6));
  EXPECT_TRUE((big.leftCols(2).array() == 0).all());
  EXPECT_TRUE((big.rightCols(2).array() == 0).all());
}

TEST(GaussianMatrix, DifferentEntitiesOrMatricesGiveDifferentNumbers) {
  const Matrix a = test_matrix(1, 0).window(0, 0, 4, 4);
  const Matrix b = test_matrix(2, 0).window(0, 0, 4, 4);
  const Matrix c = test_matrix(1, 1).window(0, 0, 4, 4);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
}

TEST(GaussianMatrix, MomentsAreThoseOfTheRequestedNormal) {
  const Matrix x = test_matrix().window(0, 0, 400, 500);  // 200k normals, stddev 0.5
  const double mean = x.mean();
  const double var = (x.array() - mean).square().mean();
  const double kurt = (x.array() - mean).pow(4).mean() / (var * var);
  EXPECT_NEAR(mean, 0.0, 5 * 0.5 / std::sqrt(200000.0));
  EXPECT_NEAR(var, 0.25, 0.25 * 5 * std::sqrt(2.0 / 200000.0));
  EXPECT_NEAR(kurt, 3.0, 0.05);
}

}  // namespace
}  // namespace wordsens
