// What a task reads from its data source.
#include "study/task.hpp"

#include <gtest/gtest.h>

namespace wordsens {
namespace {

TEST(TextUse, WsReadsTheTestTextGenAlsoItsTrainingTexts) {
  TaskSpec task;
  task.n = 12;
  task.d = 5;
  task.trial = 4;
  task.experiment = Experiment::ws;
  TextUse use = text_use(task);
  EXPECT_EQ(use.n, 12);
  EXPECT_EQ(use.d, 5);
  EXPECT_EQ(use.texts, 1);
  EXPECT_EQ(use.trial, 4U);
  task.experiment = Experiment::gen;
  task.N = 7;
  use = text_use(task);
  EXPECT_EQ(use.texts, 8);
}

}  // namespace
}  // namespace wordsens
