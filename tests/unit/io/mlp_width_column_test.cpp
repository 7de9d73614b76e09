// /tasks/k of block (format 1.9): the width of its MLP, covered by task_table_crc32 like every
// k. Files before it stored 0 for block, whose MLP was then always kBlockWidthFactor·d wide:
// they are read with that width, checked with the checksum their writer computed (over the 0),
// and resumed.
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

constexpr Index kD = 8;

// rf at k = 128, mhraf (no width) and block at its default width 4d, three trials each.
std::vector<TaskSpec> width_tasks() {
  std::vector<TaskSpec> tasks;
  const std::pair<ModelKind, Index> points[] = {
      {ModelKind::rf, 128}, {ModelKind::mhraf, 0}, {ModelKind::block, kBlockWidthFactor * kD}};
  std::uint32_t point = 0;
  for (const auto& [model, k] : points) {
    for (std::uint32_t trial = 0; trial < 3; ++trial) {
      TaskSpec t;
      t.task_id = static_cast<std::uint32_t>(tasks.size());
      t.point_id = point;
      t.model = model;
      t.n = 16;  // above the test records' argmax_position (task_id % 7)
      t.d = kD;
      t.k = k;
      t.heads = model == ModelKind::rf ? 1 : 4;
      t.trial = trial;
      t.stream_entity = t.task_id;
      tasks.push_back(t);
    }
    ++point;
  }
  return tasks;
}

const std::string kWidthConfig = "d = 8\nheads = 4\nmodels = rf,mhraf,block\nn = 16\nseed = 5\n";

class MlpWidthColumnTest : public EditedFileTest {
 protected:
  MlpWidthColumnTest() : EditedFileTest(width_tasks(), kWidthConfig) {}

  // The edits that make r.h5 a file of format 1.8 as its writer left it: block's k 0 in the
  // task table and the summaries, and the checksum of the task table over that 0 (FORMAT.md,
  // task_table_crc32).
  [[nodiscard]] static std::string as_1_8() {
    return "for g in ('tasks', 'summary/ws', 'summary/gen'):\n"
           "    k = f[g]['k'][:]\n"
           "    block = f[g]['model'][:].astype(str) == 'block'\n"
           "    k[block] = 0\n"
           "    f[g]['k'][:] = k\n" +
           strip_to_minor(8) + rehash_task_table();
  }
};

TEST_F(MlpWidthColumnTest, TheBlocksWidthIsStoredAsItsKAndReadBack) {
  ASSERT_NO_FATAL_FAILURE(write(tasks_.size(), ""));
  const FileContents c = read_results(path());
  EXPECT_EQ(c.format_minor, schema::kFormatMinor);
  ASSERT_EQ(c.tasks.size(), tasks_.size());
  for (std::size_t i = 0; i < tasks_.size(); ++i) EXPECT_EQ(c.tasks[i].k, tasks_[i].k);
  EXPECT_FALSE(check_results(path()).damaged()) << text(check_results(path()).problems);
}

// The checksum covers block's k: a width edited after the run planned it is damage, and so is
// a 1.9 file whose block's k was set to 0 (what an older writer stored, but not this version).
TEST_F(MlpWidthColumnTest, AnEditedWidthIsDamage) {
  for (const std::string code : {"f['tasks/k'][7] = 64", "f['tasks/k'][6:9] = 0"}) {
    expect_checksum_damage(code);
  }
}

// A 1.8 file stored 0 for block: its block tasks read with the width they ran, 4d, the others
// as stored; its checksum (over the 0) matches; a run resumes it, keeping its version.
TEST_F(MlpWidthColumnTest, AFileBeforeTheWidthReadsItsBlockAt4dAndResumes) {
  ASSERT_NO_FATAL_FAILURE(write(3, as_1_8()));
  const Diagnosis before = check_results(path());
  EXPECT_FALSE(before.damaged()) << text(before.problems);
  {
    const FileContents c = read_results(path());
    EXPECT_EQ(c.format_minor, 8);
    for (std::size_t i = 0; i < tasks_.size(); ++i) EXPECT_EQ(c.tasks[i].k, tasks_[i].k);
  }
  resume_the_rest();
  const Diagnosis after = check_results(path());
  EXPECT_FALSE(after.damaged()) << text(after.problems);
  const FileContents c = read_results(path());
  EXPECT_EQ(c.format_minor, 8);
  EXPECT_EQ(c.ws.size(), tasks_.size());
}

}  // namespace
}  // namespace wordsens::io
