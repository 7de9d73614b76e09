// Every study key works in an INI file with the spelling of its long option: the file and the
// command line give the same configuration, and one that differs from the defaults.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "cli/config.hpp"
#include "parse_helper.hpp"

namespace wordsens::cli {
namespace {

using testing::parse;
using testing::TempFile;

struct KeyCase {
  std::string key;
  std::string value;
  // Keys the text shows only together with another one (word-sets needs m >= 2).
  std::vector<std::pair<std::string, std::string>> with;
};

std::vector<KeyCase> study_key_cases() {
  return {
      {"experiments", "gen,ws", {}},
      {"models", "raf,rf", {}},
      {"gen-models", "raf_relu", {}},
      {"n", "8:64:log4", {}},
      {"d", "4,16", {}},
      {"gen-n", "12,30", {}},
      {"gen-d", "32", {}},
      {"k", "0.5D,100", {}},
      {"N", "5,50", {}},
      {"layers", "1:4:lin4", {}},
      {"activation", "tanh", {}},
      {"rf-sampling", "marginal", {}},
      {"heads", "8", {{"models", "mhraf"}}},
      {"mlp-width", "2d,100", {{"models", "block"}}},
      {"mask", "causal", {}},
      {"purpose", "descriptive", {}},
      {"trials", "7", {}},
      {"seed", "4294967295", {}},
      {"positions", "random:3", {}},
      {"words", "1,2,4", {}},
      {"words-fraction", "0.25", {}},
      {"word-sets", "greedy", {{"words", "2"}}},
      {"training", "retrain", {}},
      {"objective", "align", {}},
      {"data", "embeddings:/data/glove.h5", {}},
      {"save-witness", "true", {}},
      {"max-evals", "50", {}},
      {"rel-tol", "1e-3", {}},
      {"sphere-starts", "5", {}},
      {"near-origin-starts", "3", {}},
      {"guided-start", "false", {}},
      {"screen-points", "100", {}},
      {"min-total-sphere-starts", "12", {}},
      {"upper-bound", "false", {}},
      {"budget-check", "4", {}},
  };
}

std::string ini_text(const KeyCase& c) {
  std::string text = c.key + " = " + c.value + "\n";
  for (const auto& [key, value] : c.with) text += key + " = " + value + "\n";
  return text;
}

std::vector<std::string> command_line(const KeyCase& c) {
  // A switch takes no value on the command line.
  std::vector<std::string> args{c.key == "save-witness" ? "--save-witness"
                                                        : "--" + c.key + "=" + c.value};
  for (const auto& [key, value] : c.with) args.push_back("--" + key + "=" + value);
  return args;
}

class IniKey : public ::testing::TestWithParam<KeyCase> {};

TEST_P(IniKey, FileGivesTheSameConfigurationAsTheCommandLine) {
  const KeyCase& c = GetParam();
  const TempFile ini(ini_text(c));
  const auto from_file = parse({ini.path()});
  const auto from_options = parse(command_line(c));
  EXPECT_EQ(config_text(from_file), config_text(from_options));
  EXPECT_NE(config_text(from_file), config_text(parse({})));
  EXPECT_EQ(from_file.config_path, ini.path());
}

INSTANTIATE_TEST_SUITE_P(EveryStudyKey, IniKey, ::testing::ValuesIn(study_key_cases()),
                         [](const ::testing::TestParamInfo<KeyCase>& key_case) {
                           std::string name = key_case.param.key;
                           for (char& ch : name) ch = ch == '-' ? '_' : ch;
                           return name;
                         });

}  // namespace
}  // namespace wordsens::cli
