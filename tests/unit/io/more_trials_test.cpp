// A resume refused because it asks for more trials says how to add them under the sequential
// rules (io/more_trials.hpp); every other refusal keeps its one line unchanged.
#include <gtest/gtest.h>

#include <string>

#include "io/more_trials.hpp"

namespace wordsens::io {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(MoreTrialsAdvice, APlannedStudyNamesItsNextLookAndItsFile) {
  const std::string advice =
      more_trials_advice("results/quick.h5", "max-trials = 80\nn = 8\ntrials = 20\n",
                         "max-trials = 80\nn = 8\ntrials = 40\n");
  EXPECT_TRUE(contains(advice, "--first-trial=20 --trials=20")) << advice;
  EXPECT_TRUE(contains(advice, "--output=results/quick.look-2-trials-20-40.h5")) << advice;
  // The cap bounds the look: 20 → min(2·20, 30) = 30.
  const std::string capped = more_trials_advice("q.h5", "max-trials = 30\ntrials = 20\n",
                                                "max-trials = 30\ntrials = 60\n");
  EXPECT_TRUE(contains(capped, "--first-trial=20 --trials=10 --output=q.look-2-trials-20-30.h5"))
      << capped;
}

TEST(MoreTrialsAdvice, AStudyOfOneLookSaysWhyItCannotTakeMore) {
  const std::string advice =
      more_trials_advice("q.h5", "n = 8\ntrials = 20\n", "n = 8\ntrials = 40\n");
  EXPECT_TRUE(contains(advice, "planned one look")) << advice;
  EXPECT_TRUE(contains(advice, "--trials=20 --max-trials=40")) << advice;
  EXPECT_FALSE(contains(advice, "--first-trial")) << advice;
}

TEST(MoreTrialsAdvice, NothingForOtherDifferencesFewerTrialsOrALaterLook) {
  EXPECT_EQ(more_trials_advice("q.h5", "n = 8\ntrials = 20\n", "n = 16\ntrials = 40\n"), "");
  EXPECT_EQ(more_trials_advice("q.h5", "max-trials = 80\ntrials = 20\n",
                               "max-trials = 80\ntrials = 10\n"),
            "");
  EXPECT_EQ(more_trials_advice("q.h5", "n = 8\ntrials = 20\n", "n = 8\ntrials = 20\n"), "");
  EXPECT_EQ(more_trials_advice("q.h5", "first-trial = 20\nmax-trials = 80\ntrials = 20\n",
                               "first-trial = 20\nmax-trials = 80\ntrials = 40\n"),
            "");
}

}  // namespace
}  // namespace wordsens::io
