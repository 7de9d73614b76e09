// The configuration reference: every key of `wordsens run` has a type and an example in its
// declaration, and every example is accepted as it stands (the rest at their defaults).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli/config.hpp"
#include "cli/run_keys.hpp"
#include "study/config_keys.hpp"
#include "study/study_settings.hpp"
#include "unit/cli/parse_helper.hpp"

namespace wordsens::cli {
namespace {

TEST(ConfigReference, EveryExampleIsAccepted) {
  const auto formats = run_key_formats();
  ASSERT_GT(formats.size(), 40U);
  for (const auto& [key, format] : formats) {
    SCOPED_TRACE(key + ": " + format.example);
    EXPECT_FALSE(format.type.empty());
    ASSERT_FALSE(format.example.empty());
    if (format.example.rfind("--", 0) == 0) {
      if (key == "config") continue;  // names a file of the source tree: checked below
      EXPECT_NO_THROW(static_cast<void>(testing::parse({format.example})));
    } else {
      EXPECT_NE(format.example.find(key + " = "), std::string::npos)
          << "the example does not use its key";
      const testing::TempFile ini(format.example + "\n");
      EXPECT_NO_THROW(static_cast<void>(testing::parse({ini.path()})));
    }
  }
}

// The study's keys on the command line are the study's settings, each described there
// (study/study_settings.cpp): a setting without a key, or a key without a setting, fails.
TEST(ConfigReference, TheStudysKeysAreItsSettings) {
  RunKeyValues r;
  std::vector<std::pair<std::string, boost::program_options::options_description>> groups;
  static_cast<void>(describe_run_keys(r, nullptr, &groups));
  ASSERT_EQ(groups.size(), 2U);
  std::set<std::string> keys, settings;
  for (const auto& option : groups[0].second.options()) keys.insert(option->long_name());
  for (const auto& [key, kind] : setting_kinds()) settings.insert(key);
  EXPECT_EQ(keys, settings);
  for (const auto& option : groups[1].second.options()) {  // the run's keys are not stored
    EXPECT_FALSE(settings.count(option->long_name())) << option->long_name();
  }
  // The run's keys a configuration may give are those the study reads and ignores in a stored
  // configuration text (study/config_keys.hpp), help and config being the command line's only.
  std::set<std::string> run_group;
  for (const auto& option : groups[1].second.options()) {
    if (option->long_name() != "help" && option->long_name() != "config") {
      run_group.insert(option->long_name());
    }
  }
  EXPECT_EQ(run_group, std::set<std::string>(run_keys().begin(), run_keys().end()));
  for (const auto& key : settings) {
    const auto& d = setting_description(key);
    EXPECT_FALSE(d.type.empty() || d.example.empty() || d.meaning.empty()) << key;
  }
}

TEST(ConfigReference, TheConfigExampleNamesAConfigurationOfTheSourceTree) {
  const auto formats = run_key_formats();
  const std::string example = formats.at("config").example;
  const std::string prefix = "--config=";
  ASSERT_EQ(example.rfind(prefix, 0), 0U);
  const std::filesystem::path source = std::filesystem::path(__FILE__).parent_path() / "../../..";
  EXPECT_TRUE(std::filesystem::is_regular_file(source / example.substr(prefix.size())));
}

TEST(ConfigReference, EveryKeyOfTheHelpIsInTheReference) {
  const std::string reference = config_reference();
  for (const auto& [key, format] : run_key_formats()) {
    EXPECT_NE(reference.find("| `" + key + "` |"), std::string::npos) << key;
  }
}

}  // namespace
}  // namespace wordsens::cli
