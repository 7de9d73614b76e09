// The reader of embeddings files (docs/METHOD.md §1) on the tiny fixtures of
// tests/fixtures/embeddings (make_fixtures.py says what each one breaks): one test per validation
// rule, and exact values.
#include "io/inputs/embeddings_file.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "unit/embeddings_fixture.hpp"

namespace wordsens {
namespace {

std::string fixture(const std::string& name) { return testing::embeddings_fixture(name); }

// Expects open(fixture) to throw InputError whose one-line message contains `part`.
void expect_open_error(const std::string& name, const std::string& part) {
  try {
    (void)io::EmbeddingsFile::open(fixture(name));
    ADD_FAILURE() << name << ": opened without error";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(part), std::string::npos) << name << ": " << message;
    EXPECT_NE(message.find(name), std::string::npos) << "message names the file: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
  }
}

// The value make_fixtures.py stores at (sequence s, token t, coordinate c).
double stored(Index s, Index t, Index c) {
  return static_cast<double>(s) + static_cast<double>(t) / 16 + static_cast<double>(c + 1) / 128;
}

TEST(EmbeddingsFile, GoodFileHasItsShapeLengthsAndLabels) {
  const auto file = io::EmbeddingsFile::open(fixture("good.h5"));
  EXPECT_EQ(file.sequences(), 6);
  EXPECT_EQ(file.max_length(), 12);
  EXPECT_EQ(file.width(), 8);
  const Index lengths[] = {12, 12, 5, 12, 0, 9};
  for (Index s = 0; s < 6; ++s) {
    EXPECT_EQ(file.length(s), lengths[s]);
    EXPECT_EQ(file.label(s), s % 2 == 0 ? 1.0 : -1.0);
  }
  EXPECT_EQ(file.count_usable(1), 5);
  EXPECT_EQ(file.count_usable(9), 4);
  EXPECT_EQ(file.count_usable(10), 3);
  EXPECT_EQ(file.count_usable(12), 3);
  EXPECT_EQ(file.attribute("embedding_model"), "test fixture");
  EXPECT_EQ(file.attribute("no_such_attribute"), "");
}

TEST(EmbeddingsFile, RawTokensAreTheTopLeftWindowOfTheSequence) {
  const auto file = io::EmbeddingsFile::open(fixture("good.h5"));
  const Matrix X = file.raw_tokens(2, 4, 3);
  ASSERT_EQ(X.rows(), 4);
  ASSERT_EQ(X.cols(), 3);
  for (Index t = 0; t < 4; ++t) {
    for (Index c = 0; c < 3; ++c) EXPECT_DOUBLE_EQ(X(t, c), stored(2, t, c)) << t << "," << c;
  }
  EXPECT_THROW((void)file.raw_tokens(6, 1, 1), InputError);
  EXPECT_THROW((void)file.raw_tokens(0, 13, 1), InputError);
  EXPECT_THROW((void)file.raw_tokens(0, 1, 9), InputError);
}

TEST(EmbeddingsFile, SampleRescalesRowsToSqrtD) {
  const auto file = io::EmbeddingsFile::open(fixture("good.h5"));
  const Index n = 7, d = 5;
  const Matrix X = embeddings_sample(file, 0, n, d);
  ASSERT_EQ(X.rows(), n);
  ASSERT_EQ(X.cols(), d);
  for (Index t = 0; t < n; ++t) {
    EXPECT_NEAR(X.row(t).norm(), std::sqrt(static_cast<double>(d)), 1e-12);
    // Direction preserved: X(t, c) / X(t, 0) equals the stored ratio.
    EXPECT_NEAR(X(t, d - 1) / X(t, 0), stored(0, t, d - 1) / stored(0, t, 0), 1e-12);
  }
}

TEST(EmbeddingsFile, NanInfAndZeroAreReportedOnlyWhenUsed) {
  const auto file = io::EmbeddingsFile::open(fixture("good.h5"));
  // Sequence 3 has a NaN at token 10, coordinate 2.
  EXPECT_NO_THROW((void)embeddings_sample(file, 3, 10, 8));
  EXPECT_NO_THROW((void)embeddings_sample(file, 3, 12, 2));
  try {
    (void)embeddings_sample(file, 3, 11, 3);
    ADD_FAILURE() << "NaN not reported";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("token 10 of sequence 3 has a NaN"), std::string::npos)
        << e.what();
  }
  // Sequence 5 has +Inf at token 0, coordinate 7.
  EXPECT_NO_THROW((void)embeddings_sample(file, 5, 9, 7));
  EXPECT_THROW((void)embeddings_sample(file, 5, 1, 8), InputError);
  // Sequence 1, token 3 is zero in its first 4 coordinates.
  EXPECT_NO_THROW((void)embeddings_sample(file, 1, 12, 5));
  EXPECT_THROW((void)embeddings_sample(file, 1, 4, 4), InputError);
}

TEST(EmbeddingsFile, SampleRejectsTooLongNAndTooWideD) {
  const auto file = io::EmbeddingsFile::open(fixture("good.h5"));
  EXPECT_THROW((void)embeddings_sample(file, 2, 6, 4), InputError);  // length 5
  EXPECT_NO_THROW((void)embeddings_sample(file, 2, 5, 4));
  EXPECT_THROW((void)embeddings_sample(file, 0, 4, 9), InputError);  // width 8
  EXPECT_THROW((void)embeddings_sample(file, 4, 1, 1), InputError);  // length 0
}

TEST(EmbeddingsFile, SupportCheckNamesTheShortfall) {
  const auto file = io::EmbeddingsFile::open(fixture("good.h5"));
  EXPECT_NO_THROW(check_embeddings_support(file, 12, 8, 3));
  try {
    check_embeddings_support(file, 12, 8, 4);
    ADD_FAILURE() << "too few sequences not reported";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("only 3 sequences have at least n = 12 tokens"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(check_embeddings_support(file, 5, 9, 1), InputError);   // d > width
  EXPECT_THROW(check_embeddings_support(file, 13, 8, 1), InputError);  // n > max_len
  EXPECT_THROW(check_embeddings_support(file, 0, 8, 1), InputError);
}

TEST(EmbeddingsFile, MissingFile) { expect_open_error("does_not_exist.h5", "does not exist"); }
TEST(EmbeddingsFile, NotHdf5) { expect_open_error("not_hdf5.h5", "not an HDF5 file"); }
TEST(EmbeddingsFile, MissingTokens) { expect_open_error("no_tokens.h5", "no dataset /tokens"); }
TEST(EmbeddingsFile, MissingLengths) { expect_open_error("no_lengths.h5", "no dataset /lengths"); }
TEST(EmbeddingsFile, MissingLabels) { expect_open_error("no_labels.h5", "no dataset /labels"); }
TEST(EmbeddingsFile, WrongRank) { expect_open_error("tokens_rank2.h5", "/tokens has rank 2"); }
TEST(EmbeddingsFile, IntegerTokens) {
  expect_open_error("tokens_int.h5", "/tokens must hold floating-point");
}
TEST(EmbeddingsFile, FloatLengths) { expect_open_error("lengths_float.h5", "/lengths must hold"); }
TEST(EmbeddingsFile, InconsistentSizes) {
  expect_open_error("labels_short.h5", "/labels has 5 entries but /tokens has 6");
}
TEST(EmbeddingsFile, LabelNotPlusMinusOne) {
  expect_open_error("label_zero.h5", "/labels[2] = 0 is not +1 or -1");
}
TEST(EmbeddingsFile, LengthBeyondMaxLen) {
  expect_open_error("length_too_long.h5", "/lengths[1] = 13 is not in [0, 12]");
}
TEST(EmbeddingsFile, EmptyTokens) { expect_open_error("empty.h5", "/tokens is empty"); }
TEST(EmbeddingsFile, UnknownTextWindows) {
  expect_open_error("windows_unknown.h5", "text_windows = \"sliding\" is not");
}

// text_windows = whole (contextual states): a text of n tokens is a sequence of exactly n tokens,
// never the first n of a longer one; "prefix" is the default's behaviour, said explicitly.
TEST(EmbeddingsFile, WholeWindowsGiveTextsOfTheirOwnLengthOnly) {
  const auto whole = io::EmbeddingsFile::open(fixture("whole.h5"));
  const auto prefix = io::EmbeddingsFile::open(fixture("prefix.h5"));
  const auto good = io::EmbeddingsFile::open(fixture("good.h5"));
  EXPECT_TRUE(whole.whole_texts());
  EXPECT_FALSE(prefix.whole_texts());
  EXPECT_FALSE(good.whole_texts());
  // lengths 12, 12, 5, 12, 0, 9
  EXPECT_EQ(whole.count_usable(12), 3);
  EXPECT_EQ(whole.count_usable(9), 1);
  EXPECT_EQ(whole.count_usable(5), 1);
  EXPECT_EQ(whole.count_usable(4), 0);
  EXPECT_EQ(prefix.count_usable(4), 5);
  EXPECT_EQ(usable_sequences(whole, 9), std::vector<Index>{5});
  EXPECT_NO_THROW((void)embeddings_sample(whole, 2, 5, 4));
  EXPECT_THROW((void)embeddings_sample(whole, 2, 4, 4), InputError);  // a prefix of a window
  EXPECT_NO_THROW((void)embeddings_sample(prefix, 2, 4, 4));
  // Every trial's text comes from the sequences of exactly n tokens.
  for (std::uint32_t trial = 0; trial < 20; ++trial) {
    EXPECT_EQ(select_sequences(whole, 5, trial, 9, 1), std::vector<Index>{5});
  }
  try {
    check_embeddings_support(whole, 10, 8, 1);
    ADD_FAILURE() << "no text of 10 tokens not reported";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("only 0 sequences have exactly n = 10 tokens"),
              std::string::npos)
        << e.what();
  }
  // The table a run works on keeps the rule, and so does the fingerprint.
  const EmbeddingsTable table = whole.load({0, 5}, 12, 8);
  EXPECT_TRUE(table.whole_texts());
  EXPECT_EQ(usable_sequences(table, 12), (std::vector<Index>{0, 1, 3}));
  EXPECT_NE(whole.fingerprint().find(" text_windows=whole"), std::string::npos);
  EXPECT_EQ(prefix.fingerprint().find("text_windows"), std::string::npos);
}

}  // namespace
}  // namespace wordsens
