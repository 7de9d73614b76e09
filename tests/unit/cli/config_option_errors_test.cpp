// Options and keys `wordsens run` does not know, or no longer knows, on the command line and in
// the INI file: a typo must be an error, never a guess or a silent default.
#include <gtest/gtest.h>

#include <string>

#include "parse_helper.hpp"

namespace wordsens::cli {
namespace {

using testing::expect_usage_error;
using testing::expect_usage_line;
using testing::TempFile;

TEST(OptionErrors, UnknownOptions) {
  expect_usage_line({"--bogus=1"}, "--bogus: unknown option");
  expect_usage_line({"--Models=rf"}, "--Models: unknown option");
  expect_usage_line({"-x"}, "-x: unknown option");
}

// Boost would otherwise take a unique prefix for the option it starts.
TEST(OptionErrors, PrefixesAreNotGuessed) {
  expect_usage_line({"--ex=ws"}, "--ex: unknown option");
  expect_usage_line({"--experiment=ws"}, "--experiment: unknown option");
  expect_usage_line({"--model=rf"}, "--model: unknown option");
  expect_usage_line({"--over"}, "--over: unknown option");
  expect_usage_line({"--min-total=4"}, "--min-total: unknown option");
}

TEST(OptionErrors, RenamedOptionsNameTheirNewSpelling) {
  expect_usage_line({"--origin-starts=2"}, "--origin-starts: now spelled --near-origin-starts");
  expect_usage_line({"--origin-starts", "2"}, "--origin-starts: now spelled --near-origin-starts");
  expect_usage_line({"--no-guided-start"}, "--no-guided-start: now spelled --guided-start=false");
  expect_usage_line({"--n=5", "--no-upper-bound"},
                    "--no-upper-bound: now spelled --upper-bound=false");
}

TEST(OptionErrors, RepeatedOption) {
  expect_usage_line({"--n=10", "--n=20"}, "--n: given more than once");
}

TEST(OptionErrors, MissingValue) { expect_usage_line({"--seed"}, "--seed: missing value"); }

// The dry run's format is checked whether or not --dry-run is given: a typo in a job script
// fails at once, not at the first dry run.
TEST(OptionErrors, UnknownPlanFormat) {
  expect_usage_line({"--dry-run", "--format=yaml"}, "format = 'yaml': expected table, tsv or json");
  expect_usage_line({"--format=JSON"}, "format = 'JSON': expected table, tsv or json");
}

// A switch takes `=true` or `=false` (boost's other spellings of a boolean too), nothing else.
TEST(OptionErrors, SwitchGivenAValueThatIsNoBoolean) {
  expect_usage_line({"--dry-run=maybe"}, "dry-run = 'maybe': expected true or false");
  expect_usage_line({"--overwrite=2"}, "overwrite = '2': expected true or false");
  expect_usage_line({"--save-witness=on_demand"}, "save-witness = 'on_demand'");
  // --help stays a plain flag.
  expect_usage_line({"--help=true"}, "--help: takes no value");
}

TEST(OptionErrors, TwoConfigurationFiles) {
  const TempFile a("n = 5\n");
  const TempFile b("n = 6\n");
  expect_usage_line({a.path(), b.path()}, "more than one configuration file");
  expect_usage_line({a.path(), "--config=" + b.path()}, "--config: given more than once");
}

// The file and the line, so that the key can be found in a long file.
TEST(OptionErrors, UnknownKeyInTheFileNamesFileAndLine) {
  const TempFile ini("n = 5\n# a comment\n\nbogus = 1\n");
  expect_usage_line({ini.path()}, ini.path() + ":4: unknown key 'bogus'");
}

TEST(OptionErrors, PrefixesAreNotGuessedInTheFile) {
  const TempFile ini("ex = ws\n");
  expect_usage_line({ini.path()}, ini.path() + ":1: unknown key 'ex'");
}

// What only the command line takes.
TEST(OptionErrors, CommandLineOptionsAreNoKeysOfTheFile) {
  const TempFile help("help = true\n");
  expect_usage_line({help.path()}, help.path() + ":1: 'help' is an option of the command line");
  const TempFile config("config = other.ini\n");
  expect_usage_line({config.path()}, config.path() + ":1: 'config' is an option");
}

// A section header used to turn every key below it into an unknown "study.trials"; sections mean
// nothing here, so the header itself is refused, with its line.
TEST(OptionErrors, SectionHeadersAreRefusedWithTheirLine) {
  const TempFile first("[study]\ntrials = 3\n");
  expect_usage_line({first.path()}, first.path() + ":1: section header '[study]'",
                    {"sections are not supported"});
  const TempFile later("trials = 3\n\n  [ run ]  \noutput = a.h5\n");
  expect_usage_line({later.path()}, later.path() + ":3: section header '[ run ]'");
}

TEST(OptionErrors, RenamedKeysInTheFileNameFileLineAndNewSpelling) {
  const TempFile origin("# searches\nn = 5\n  origin-starts = 2\n");
  expect_usage_line({origin.path()},
                    origin.path() + ":3: key origin-starts is now spelled near-origin-starts");
  const TempFile guided("no-guided-start = true\n");
  expect_usage_line({guided.path()}, guided.path() + ":1:", {"guided-start = false"});
  const TempFile upper("no-upper-bound=1\n");
  expect_usage_line({upper.path()}, upper.path() + ":1:", {"upper-bound = false"});
}

TEST(OptionErrors, RepeatedKeyInTheFile) {
  const TempFile ini("n = 5\nn = 6\n");
  expect_usage_line({ini.path()}, ini.path() + ":2: key 'n' given twice (also on line 1)");
}

TEST(OptionErrors, LineWithoutAValueInTheFile) {
  const TempFile ini("n = 5\njust words\n");
  expect_usage_line({ini.path()}, ini.path() + ":2: 'just words' is not a `key = value` line");
  const TempFile no_key("= 5\n");
  expect_usage_line({no_key.path()}, no_key.path() + ":1: no key before '='");
}

// A bad value of the file: its file and line, then the key as every other message starts.
TEST(OptionErrors, BadValuesInTheFileNameFileLineAndKey) {
  const TempFile seed("seed = abc\n");
  expect_usage_line({seed.path()}, seed.path() + ":1: seed = 'abc'");
  const TempFile trials("# trials\ntrials = many\n");
  expect_usage_line({trials.path()}, trials.path() + ":2: trials = 'many'");
  const TempFile grid("n = 10,,20\n");
  expect_usage_line({grid.path()}, grid.path() + ":1: n = '10,,20'");
  // A key of the command line is not the file's: no file and line then.
  expect_usage_line({trials.path(), "--trials=0"}, "trials = '0'");
}

// The flag does not excuse an unknown option: the command line is checked first.
TEST(OptionErrors, HelpDoesNotHideAnUnknownOption) {
  expect_usage_line({"--help", "--bogus"}, "--bogus: unknown option");
}

}  // namespace
}  // namespace wordsens::cli
