// /tasks/heads (format 1.8): H of every task, covered by task_table_crc32. Files before it ran
// their multi-head models at the one `heads` of their configuration: they are read so, checked
// with the checksum their writer computed (without the column), and resumed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "io/format/schema.hpp"
#include "io/results_file.hpp"
#include "io_test_support.hpp"

namespace wordsens::io {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): test helpers

// mhraf at H = 2 and 8 beside rf (H = 1), three trials each.
std::vector<TaskSpec> heads_tasks() {
  std::vector<TaskSpec> tasks;
  const std::pair<ModelKind, int> points[] = {
      {ModelKind::rf, 1}, {ModelKind::mhraf, 2}, {ModelKind::mhraf, 8}};
  std::uint32_t point = 0;
  for (const auto& [model, heads] : points) {
    for (std::uint32_t trial = 0; trial < 3; ++trial) {
      TaskSpec t;
      t.task_id = static_cast<std::uint32_t>(tasks.size());
      t.point_id = point;
      t.model = model;
      t.n = 16;  // above the test records' argmax_position (task_id % 7)
      t.d = 8;
      t.k = model == ModelKind::rf ? 128 : 0;
      t.heads = heads;
      t.trial = trial;
      t.stream_entity = t.task_id;
      tasks.push_back(t);
    }
    ++point;
  }
  return tasks;
}

// The configuration heads_tasks() is the plan of, as the writer stores it (no INI section).
const std::string kHeadsConfig =
    "d = 8\nheads = 2,8\nmodels = rf,mhraf\nn = 16\nseed = 12345\ntrials = 3\n";

class HeadsColumnTest : public EditedFileTest {
 protected:
  HeadsColumnTest() : EditedFileTest(heads_tasks(), kHeadsConfig) {}
};

// A study of format 1.7's time, with its one H (mhraf at H = 8 beside rf, at two n), and the
// tasks it plans.
const std::string kOneHeadsConfig =
    "d = 8\nheads = 8\nmodels = rf,mhraf\nn = 16,24\nseed = 12345\n";

class OneHeadsFileTest : public EditedFileTest {
 protected:
  OneHeadsFileTest() : EditedFileTest(plan_of_config_text(kOneHeadsConfig), kOneHeadsConfig) {}

  // The edits that make r.h5 a file of format 1.7 as its writer left it: no heads columns (nor
  // what later minors added), and the checksum of the task table without them (FORMAT.md,
  // task_table_crc32).
  [[nodiscard]] static std::string as_1_7() { return strip_to_minor(7) + rehash_task_table(); }
};

TEST_F(HeadsColumnTest, EveryTasksHIsStoredAndReadBack) {
  ASSERT_NO_FATAL_FAILURE(write(tasks_.size(), ""));
  const FileContents c = read_results(path());
  EXPECT_EQ(c.format_minor, schema::kFormatMinor);
  ASSERT_EQ(c.tasks.size(), tasks_.size());
  for (std::size_t i = 0; i < tasks_.size(); ++i) EXPECT_EQ(c.tasks[i].heads, tasks_[i].heads);
  EXPECT_FALSE(check_results(path()).damaged()) << text(check_results(path()).problems);
}

// The checksum covers H: a task table whose H was edited, or whose heads column was removed,
// no longer matches it. The removal on a study of one H, whose tasks then read that H from its
// configuration (with two, the table cannot be read without the column: that is damage too).
TEST_F(HeadsColumnTest, AnEditedHeadsColumnIsDamage) {
  expect_checksum_damage("f['tasks/heads'][4] = 4");
  ASSERT_NO_FATAL_FAILURE(write(tasks_.size(), "del f['tasks/heads']"));
  EXPECT_TRUE(check_results(path()).damaged());
}

TEST_F(OneHeadsFileTest, ARemovedHeadsColumnIsDamage) {
  expect_checksum_damage("del f['tasks/heads']");
}

// A 1.7 file has no heads column: its mhraf tasks read with its configuration's heads = 8, the
// others with 1; its checksum (without the column) matches, and so does its plan; a run resumes
// it, keeping its version.
TEST_F(OneHeadsFileTest, AFileBeforeTheColumnReadsItsConfigurationsHeadsAndResumes) {
  ASSERT_NO_FATAL_FAILURE(write(3, as_1_7()));
  const Diagnosis before = check_results(path());
  EXPECT_FALSE(before.damaged()) << text(before.problems);
  {
    const FileContents c = read_results(path());
    EXPECT_EQ(c.format_minor, 7);
    for (const TaskSpec& t : c.tasks) EXPECT_EQ(t.heads, t.model == ModelKind::mhraf ? 8 : 1);
  }
  resume_the_rest();
  const Diagnosis after = check_results(path());
  EXPECT_FALSE(after.damaged()) << text(after.problems);
  const FileContents c = read_results(path());
  EXPECT_EQ(c.format_minor, 7);
  EXPECT_EQ(c.ws.size(), tasks_.size());
}

}  // namespace
}  // namespace wordsens::io
