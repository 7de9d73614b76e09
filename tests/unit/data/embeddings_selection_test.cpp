// Per-trial choice of texts from an embeddings source (data/embeddings_source.hpp), on an
// in-memory source: deterministic, disjoint, nested in N, shared by WS and gen, uniform.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "data/embeddings_source.hpp"

namespace wordsens {
namespace {

// Sequence s has lengths[s] tokens; token t, coordinate c holds 1 + s + t·0.01 + c·0.001.
class MemorySource final : public EmbeddingsSource {
 public:
  explicit MemorySource(std::vector<Index> lengths) : lengths_(std::move(lengths)) {}
  Index sequences() const override { return static_cast<Index>(lengths_.size()); }
  Index max_length() const override { return 20; }
  Index width() const override { return 6; }
  Index length(Index s) const override { return lengths_[static_cast<std::size_t>(s)]; }
  double label(Index s) const override { return s % 3 == 0 ? 1.0 : -1.0; }
  Matrix raw_tokens(Index s, Index n, Index d) const override {
    Matrix X(n, d);
    for (Index t = 0; t < n; ++t) {
      for (Index c = 0; c < d; ++c) X(t, c) = 1.0 + static_cast<double>(s) + 0.01 * t + 0.001 * c;
    }
    return X;
  }
  std::string name() const override { return "memory"; }

 private:
  std::vector<Index> lengths_;
};

MemorySource mixed_source() {
  std::vector<Index> lengths;
  for (Index s = 0; s < 50; ++s) lengths.push_back(s % 5 == 4 ? 8 : 20);  // 10 short ones
  return MemorySource(lengths);
}

TEST(EmbeddingsSelection, DeterministicDistinctAndUsable) {
  const auto source = mixed_source();
  const auto a = select_sequences(source, 7, 3, 15, 30);
  const auto b = select_sequences(source, 7, 3, 15, 30);
  EXPECT_EQ(a, b);
  EXPECT_EQ(std::set<Index>(a.begin(), a.end()).size(), a.size()) << "texts must be disjoint";
  for (const Index s : a) EXPECT_GE(source.length(s), 15);
  // Every usable sequence when all are asked for; the short ones never.
  const auto all = select_sequences(source, 7, 3, 15, 40);
  EXPECT_EQ(std::set<Index>(all.begin(), all.end()).size(), 40u);
  EXPECT_THROW((void)select_sequences(source, 7, 3, 15, 41), InputError);
  EXPECT_NO_THROW((void)select_sequences(source, 7, 3, 8, 50));
}

TEST(EmbeddingsSelection, NestedInCountAndSharedTestText) {
  const auto source = mixed_source();
  const auto small = select_sequences(source, 11, 5, 10, 6);
  const auto large = select_sequences(source, 11, 5, 10, 25);
  EXPECT_TRUE(std::equal(small.begin(), small.end(), large.begin()));
  // The WS text (sample 0) is gen's test text; samples 1..N are the training texts.
  for (std::uint32_t i = 0; i < 6; ++i) {
    const Matrix X = embeddings_trial_sample(source, 11, 10, 4, 5, i);
    EXPECT_EQ(X, embeddings_sample(source, small[i], 10, 4));
    EXPECT_EQ(embeddings_trial_label(source, 11, 10, 5, i), source.label(small[i]));
  }
}

TEST(EmbeddingsSelection, DependsOnTrialAndSeed) {
  const auto source = mixed_source();
  const auto base = select_sequences(source, 1, 0, 10, 10);
  EXPECT_NE(base, select_sequences(source, 1, 1, 10, 10));
  EXPECT_NE(base, select_sequences(source, 2, 0, 10, 10));
}

TEST(EmbeddingsSelection, TestTextIsUniformOverUsableSequences) {
  // 40 usable sequences, 4000 trials: each is the test text ≈ 100 times. A chi-square statistic
  // with 39 degrees of freedom above 80 has probability < 1e-4 under uniformity.
  const auto source = mixed_source();
  std::vector<double> counts(50, 0.0);
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    counts[static_cast<std::size_t>(
        select_sequences(source, 3, static_cast<std::uint32_t>(t), 12, 1)[0])] += 1;
  }
  double chi2 = 0.0;
  for (Index s = 0; s < 50; ++s) {
    if (source.length(s) < 12) {
      EXPECT_EQ(counts[static_cast<std::size_t>(s)], 0.0);
      continue;
    }
    const double expected = trials / 40.0;
    chi2 += std::pow(counts[static_cast<std::size_t>(s)] - expected, 2) / expected;
  }
  EXPECT_LT(chi2, 80.0);
}

}  // namespace
}  // namespace wordsens
