// The driver's `embeddings:` source (d = 5 and n ≤ 10 avoid the fixture's NaN, Inf and zero): the
// in-memory table loaded from a file, the per-trial gen problem (disjoint texts, labels from the
// file) and the grid check of embeddings_needs().
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "data/embeddings_data_source.hpp"
#include "io/inputs/embeddings_file.hpp"
#include "unit/embeddings_fixture.hpp"

namespace wordsens {
namespace {

std::string good_fixture() { return testing::embeddings_fixture("good.h5"); }

// What a ws task (its test text) and a gen task (test and N training texts) read.
TextUse ws_use(Index n, Index d, std::uint32_t trial) { return {n, d, 1, trial}; }
TextUse gen_use(Index n, Index d, Index N, std::uint32_t trial) { return {n, d, N + 1, trial}; }

TEST(EmbeddingsTable, LoadedWindowEqualsTheFile) {
  const auto file = io::EmbeddingsFile::open(good_fixture());
  const EmbeddingsTable table = file.load({0, 3}, 10, 6);
  EXPECT_EQ(table.sequences(), file.sequences());
  EXPECT_EQ(table.max_length(), file.max_length());
  EXPECT_EQ(table.width(), file.width());
  for (Index s = 0; s < file.sequences(); ++s) {
    EXPECT_EQ(table.length(s), file.length(s));
    EXPECT_EQ(table.label(s), file.label(s));
  }
  EXPECT_EQ(table.raw_tokens(3, 10, 6), file.raw_tokens(3, 10, 6));
  EXPECT_EQ(embeddings_sample(table, 0, 7, 4), embeddings_sample(file, 0, 7, 4));
  EXPECT_THROW((void)table.raw_tokens(1, 2, 2), std::logic_error);   // not loaded
  EXPECT_THROW((void)table.raw_tokens(0, 11, 2), std::logic_error);  // beyond the window
  EXPECT_THROW((void)file.load({0, 0}, 2, 2), InputError);
  EXPECT_THROW((void)file.load({6}, 2, 2), InputError);
}

TEST(EmbeddingsDataSource, GenProblemHasDisjointTextsAndFileLabels) {
  auto file = std::make_shared<io::EmbeddingsFile>(io::EmbeddingsFile::open(good_fixture()));
  const EmbeddingsDataSource data(file, 5);
  for (std::uint32_t trial = 0; trial < 20; ++trial) {
    const auto chosen = select_sequences(*file, 5, trial, 9, 4);
    const GenProblem p = data.gen_problem(9, 5, 3, trial);
    ASSERT_EQ(p.train.size(), 3u);
    EXPECT_EQ(p.test, embeddings_sample(*file, chosen[0], 9, 5));
    EXPECT_EQ(p.test_label, file->label(chosen[0]));
    EXPECT_EQ(data.test_sample(9, 5, trial), p.test) << "WS and gen share the test text";
    for (Index m = 0; m < 3; ++m) {
      EXPECT_EQ(p.train[static_cast<std::size_t>(m)],
                embeddings_sample(*file, chosen[static_cast<std::size_t>(m + 1)], 9, 5));
      EXPECT_EQ(p.train_labels(m), file->label(chosen[static_cast<std::size_t>(m + 1)]));
    }
    EXPECT_EQ(std::set<Index>(chosen.begin(), chosen.end()).size(), 4u);
  }
  // Only 4 sequences have 9 tokens: N = 4 needs 5.
  EXPECT_THROW((void)data.gen_problem(9, 5, 4, 0), InputError);
}

TEST(EmbeddingsDataSource, NeedsCoverEveryUseAndCheckTheGrid) {
  const auto file = io::EmbeddingsFile::open(good_fixture());
  const EmbeddingsNeeds needs =
      embeddings_needs(file, 8, {ws_use(4, 5, 0), ws_use(10, 5, 1), gen_use(9, 5, 2, 2)});
  EXPECT_EQ(needs.n, 10);
  EXPECT_EQ(needs.d, 5);
  const auto table =
      std::make_shared<const EmbeddingsTable>(file.load(needs.sequences, needs.n, needs.d));
  const EmbeddingsDataSource from_table(table, 8);
  const EmbeddingsDataSource from_file(
      std::make_shared<io::EmbeddingsFile>(io::EmbeddingsFile::open(good_fixture())), 8);
  // Every task can be served from the table alone, with the file's values.
  EXPECT_EQ(from_table.test_sample(4, 5, 0), from_file.test_sample(4, 5, 0));
  EXPECT_EQ(from_table.test_sample(10, 5, 1), from_file.test_sample(10, 5, 1));
  const GenProblem a = from_table.gen_problem(9, 5, 2, 2);
  const GenProblem b = from_file.gen_problem(9, 5, 2, 2);
  EXPECT_EQ(a.test, b.test);
  EXPECT_EQ(a.train[0], b.train[0]);
  EXPECT_EQ(a.train[1], b.train[1]);
  EXPECT_EQ(a.train_labels, b.train_labels);

  EXPECT_THROW((void)embeddings_needs(file, 8, {ws_use(4, 9, 0)}),
               InputError);  // d > width
  EXPECT_THROW((void)embeddings_needs(file, 8, {gen_use(12, 2, 3, 0)}),
               InputError);  // 3 sequences of 12 tokens, gen needs 4
  EXPECT_NO_THROW((void)embeddings_needs(file, 8, {gen_use(12, 2, 2, 0)}));
}

}  // namespace
}  // namespace wordsens
