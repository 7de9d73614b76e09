// Options and keys `wordsens run` does not know, or no longer knows, on the command line and in
// the INI file: a typo must be an error, never a guess or a silent default.
#include <gtest/gtest.h>

#include <string>

#include "parse_helper.hpp"

namespace wordsens::cli {
namespace {

using testing::expect_usage_error;
using testing::TempFile;

TEST(OptionErrors, UnknownOptions) {
  expect_usage_error({"--bogus=1"}, {"unrecognised option", "--bogus"});
  expect_usage_error({"--Models=rf"}, {"unrecognised option", "--Models"});
  expect_usage_error({"-x"}, {"unrecognised option", "-x"});
}

// Boost would otherwise take a unique prefix for the option it starts.
TEST(OptionErrors, PrefixesAreNotGuessed) {
  expect_usage_error({"--ex=ws"}, {"unrecognised option", "--ex"});
  expect_usage_error({"--experiment=ws"}, {"unrecognised option", "--experiment"});
  expect_usage_error({"--model=rf"}, {"unrecognised option", "--model"});
  expect_usage_error({"--over"}, {"unrecognised option", "--over"});
  expect_usage_error({"--min-total=4"}, {"unrecognised option", "--min-total"});
}

TEST(OptionErrors, RenamedOptionsNameTheirNewSpelling) {
  expect_usage_error({"--origin-starts=2"},
                     {"option --origin-starts is now spelled --near-origin-starts"});
  expect_usage_error({"--origin-starts", "2"}, {"--origin-starts", "--near-origin-starts"});
  expect_usage_error({"--no-guided-start"},
                     {"option --no-guided-start is now spelled --guided-start=false"});
  expect_usage_error({"--n=5", "--no-upper-bound"},
                     {"option --no-upper-bound is now spelled --upper-bound=false"});
}

TEST(OptionErrors, RepeatedOption) {
  expect_usage_error({"--n=10", "--n=20"}, {"'--n'", "more than once"});
}

TEST(OptionErrors, MissingValue) { expect_usage_error({"--seed"}, {"--seed", "missing"}); }

TEST(OptionErrors, SwitchGivenAValue) {
  expect_usage_error({"--dry-run=yes"}, {"--dry-run", "does not take any arguments"});
}

TEST(OptionErrors, TwoConfigurationFiles) {
  const TempFile a("n = 5\n");
  const TempFile b("n = 6\n");
  expect_usage_error({a.path(), b.path()}, {"too many positional options"});
}

TEST(OptionErrors, UnknownKeyInTheFile) {
  const TempFile ini("n = 5\nbogus = 1\n");
  expect_usage_error({ini.path()}, {ini.path() + ": ", "unrecognised option", "bogus"});
}

TEST(OptionErrors, PrefixesAreNotGuessedInTheFile) {
  const TempFile ini("ex = ws\n");
  expect_usage_error({ini.path()}, {"unrecognised option", "'ex'"});
}

TEST(OptionErrors, RenamedKeysInTheFileNameFileLineAndNewSpelling) {
  const TempFile origin("# searches\nn = 5\n  origin-starts = 2\n");
  expect_usage_error({origin.path()}, {origin.path() + ":3: key origin-starts is now spelled "
                                                       "near-origin-starts"});
  const TempFile guided("no-guided-start = true\n");
  expect_usage_error({guided.path()}, {guided.path() + ":1:", "guided-start = false"});
  const TempFile upper("no-upper-bound=1\n");
  expect_usage_error({upper.path()}, {upper.path() + ":1:", "upper-bound = false"});
}

TEST(OptionErrors, RepeatedKeyInTheFile) {
  const TempFile ini("n = 5\nn = 6\n");
  expect_usage_error({ini.path()}, {"'n'", "more than once"});
}

TEST(OptionErrors, LineWithoutAValueInTheFile) {
  const TempFile ini("n = 5\njust words\n");
  expect_usage_error({ini.path()}, {"invalid line", "just words"});
}

TEST(OptionErrors, BadValuesInTheFileNameTheirKey) {
  const TempFile seed("seed = abc\n");
  expect_usage_error({seed.path()}, {"seed = 'abc'"});
  const TempFile trials("trials = many\n");
  expect_usage_error({trials.path()}, {"trials", "many"});
  const TempFile grid("n = 10,,20\n");
  expect_usage_error({grid.path()}, {"n = '10,,20'"});
}

// The flag does not excuse an unknown option: the command line is checked first.
TEST(OptionErrors, HelpDoesNotHideAnUnknownOption) {
  expect_usage_error({"--help", "--bogus"}, {"--bogus"});
}

}  // namespace
}  // namespace wordsens::cli
