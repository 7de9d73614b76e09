// A stored configuration text read by the study (study/config_text.hpp) as `wordsens run` reads a
// configuration file: its keys at their defaults unless given, the run's keys read and ignored,
// and every text this version does not take refused with the line `wordsens run` gives.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"
#include "study/config_text.hpp"
#include "study/study.hpp"
#include "study/study_settings.hpp"

namespace wordsens {
namespace {

// The message of the exception study_of_config_text throws on `text` ("" when it throws none).
std::string refusal(const std::string& text) {
  try {
    (void)study_of_config_text(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Every key not given is at the default its row describes (what --help and docs/CONFIG.md show).
TEST(ConfigText, AKeyNotGivenIsAtItsDescribedDefault) {
  std::string every;
  for (const auto& [key, kind] : setting_kinds()) {
    const SettingDescription& d = setting_description(key);
    every += key + " = " + (d.is_switch ? "false" : d.default_text) + "\n";
  }
  EXPECT_EQ(canonical_text(study_of_config_text("")), canonical_text(study_of_config_text(every)));
  EXPECT_EQ(study_of_config_text("").grid.models.size(), 4U);  // the paper's four
}

TEST(ConfigText, ItsOwnCanonicalTextPlansTheSameTasks) {
  const StudyConfig study =
      study_of_config_text("# a comment\nmodels = rf,raf\nn = 8:16:lin3\nd = 4\ntrials = 2\n");
  EXPECT_EQ(study.grid.n, (std::vector<Index>{8, 12, 16}));
  const auto tasks = plan_tasks(study);
  EXPECT_EQ(tasks.size(), 2U * 3U * 2U);
  const auto again = plan_of_config_text(canonical_text(study));
  ASSERT_EQ(again.size(), tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    EXPECT_EQ(again[i].n, tasks[i].n);
    EXPECT_EQ(again[i].model, tasks[i].model);
    EXPECT_EQ(again[i].trial, tasks[i].trial);
  }
}

// A sharded run stores `shard`; a configuration file may give every key of the run: none is the
// study's.
TEST(ConfigText, TheRunsKeysAreReadAndIgnored) {
  const std::string study = "n = 8\ntrials = 2\n";
  EXPECT_EQ(canonical_text(study_of_config_text(
                study + "shard = 1/3\noutput = r.h5\nwalltime = 60\ndry-run = true\n")),
            canonical_text(study_of_config_text(study)));
}

TEST(ConfigText, ATextThisVersionDoesNotTakeIsRefusedWithTheLineOfRun) {
  EXPECT_EQ(refusal("n = 8\nbogus = 1\n"),
            "configuration text:2: unknown key 'bogus' (wordsens run --help lists the keys)");
  EXPECT_EQ(refusal("origin-starts = 2\n"),
            "configuration text:1: key origin-starts is now spelled near-origin-starts");
  EXPECT_EQ(refusal("config = a.ini\n"),
            "configuration text:1: 'config' is an option of the command line, not a key");
  EXPECT_EQ(refusal("[study]\ntrials = 3\n"),
            "configuration text:1: section header '[study]': sections are not supported, write "
            "the keys without one");
  EXPECT_EQ(refusal("trials = 0\n"), "trials = '0': expected an integer in [1, " +
                                         std::to_string(StudyLimits::max_trials) + "]");
  // Every key is checked before a value is read.
  EXPECT_EQ(refusal("trials = 0\nbogus = 1\n"),
            "configuration text:2: unknown key 'bogus' (wordsens run --help lists the keys)");
  EXPECT_THROW((void)plan_of_config_text("n = 2\nwords = 3\n"), InputError);  // m > n
}

}  // namespace
}  // namespace wordsens
