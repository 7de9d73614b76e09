// /models (format 1.7): the traits of the models a file runs, written with the task table and
// checked by every reader (content_checks.cpp's check_models); every trait of the catalogue's
// rows from 1.10 on. Files of 1.5 and 1.6 have none, files of 1.7 to 1.9 four: they are still
// checked, read and resumed.
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

// rf and raf (ws), raf_relu (gen); the file without summaries.
class ModelsTableTest : public EditedFileTest {
 protected:
  ModelsTableTest() : EditedFileTest(make_tasks(4, 2), config_of(4, 2)) {}

  void write(std::size_t done, const std::string& code) {
    EditedFileTest::write(done, code, /*summaries=*/false);
  }
  [[nodiscard]] static bool lists(const std::vector<std::string>& lines, const std::string& words) {
    return text(lines).find(words) != std::string::npos;
  }
};

TEST_F(ModelsTableTest, ListsEachModelOfTheTasksOnceWithItsKindsTraits) {
  ASSERT_NO_FATAL_FAILURE(write(tasks_.size(), ""));
  const Diagnosis d = check_results(path());
  EXPECT_FALSE(d.damaged()) << text(d.problems);
  EXPECT_EQ(d.notes, std::vector<std::string>{});
}

TEST_F(ModelsTableTest, FlagsOtherThanTheKindsAreDamage) {
  ASSERT_NO_FATAL_FAILURE(write(tasks_.size(), "f['models/attention'][1] = 0"));
  const Diagnosis d = check_results(path());
  EXPECT_TRUE(lists(d.problems, "/models gives a model other traits than its kind has (raf)"))
      << text(d.problems);
  EXPECT_THROW((void)read_results(path()), DamagedFileError);
}

TEST_F(ModelsTableTest, AModelTheTasksDoNotRunOrAnotherOrderIsDamage) {
  for (const std::string code :
       {"f['models/model'][2] = b'drf'", "m = f['models']\nfor c in m: m[c][:] = m[c][:][::-1]",
        "for c in f['models']: f['models'][c].resize((2,))"}) {
    ASSERT_NO_FATAL_FAILURE(write(tasks_.size(), code));
    const Diagnosis d = check_results(path());
    EXPECT_TRUE(lists(d.problems, "/models lists ")) << code << "\n" << text(d.problems);
    EXPECT_TRUE(lists(d.problems, "but the task table runs rf, raf, raf_relu")) << code;
    std::filesystem::remove(path());
  }
}

// Format 1.10: multi_head, width and encoder are checked like the four flags of 1.7.
TEST_F(ModelsTableTest, EveryTraitOfTheCatalogueIsStoredAndChecked) {
  for (const auto& [code, model] :
       {std::pair<std::string, std::string>{"f['models/multi_head'][1] = 1", "raf"},
        {"f['models/width'][0] = 2", "rf"},  // rf's k is random features', not an MLP's
        {"f['models/width'][2] = 1", "raf_relu"},
        {"f['models/encoder'][0] = 1", "rf"}}) {
    ASSERT_NO_FATAL_FAILURE(write(tasks_.size(), code));
    const Diagnosis d = check_results(path());
    EXPECT_TRUE(
        lists(d.problems, "/models gives a model other traits than its kind has (" + model + ")"))
        << code << "\n"
        << text(d.problems);
    std::filesystem::remove(path());
  }
  ASSERT_NO_FATAL_FAILURE(write(tasks_.size(), "del f['models/width']"));
  EXPECT_TRUE(lists(check_results(path()).problems, "/models/width is missing"));
}

// A 1.9 file (the four traits of 1.7 only) is consistent, resumed as it is, and read.
TEST_F(ModelsTableTest, AFileOfFourTraitsIsCheckedAndResumed) {
  ASSERT_NO_FATAL_FAILURE(write(3, strip_to_minor(9)));
  EXPECT_FALSE(check_results(path()).damaged()) << text(check_results(path()).problems);
  resume_the_rest();
  const Diagnosis d = check_results(path());
  EXPECT_FALSE(d.damaged()) << text(d.problems);
  EXPECT_EQ(read_results(path()).format_minor, 9);
}

// A missing column is named, and the checks after /models still run: a record value no run
// writes is listed beside it.
TEST_F(ModelsTableTest, AMissingColumnDoesNotStopTheOtherChecks) {
  ASSERT_NO_FATAL_FAILURE(write(tasks_.size(), "del f['models/deep']\nf['ws/S'][0] = -1.0"));
  const Diagnosis d = check_results(path());
  EXPECT_TRUE(lists(d.problems, "/models/deep is missing")) << text(d.problems);
  EXPECT_TRUE(lists(d.problems, "/ws/S holds values outside")) << text(d.problems);
}

// The sphere-start minimum is a search default another build may have set otherwise: a note.
TEST_F(ModelsTableTest, AnotherSphereStartMinimumIsOnlyNoted) {
  ASSERT_NO_FATAL_FAILURE(write(tasks_.size(), "f['models/min_total_sphere_starts'][1] = 16"));
  const Diagnosis d = check_results(path());
  EXPECT_FALSE(d.damaged()) << text(d.problems);
  EXPECT_TRUE(lists(d.notes, "raf 16, this build 32")) << text(d.notes);
}

// A 1.6 file (no /models) is consistent, resumed without gaining the table, and read complete.
TEST_F(ModelsTableTest, AnOlderFileWithoutTheTableIsCheckedAndResumed) {
  ASSERT_NO_FATAL_FAILURE(write(3, "del f['models']\n" + strip_to_minor(6) + rehash_task_table()));
  EXPECT_FALSE(check_results(path()).damaged()) << text(check_results(path()).problems);
  resume_the_rest();
  const Diagnosis d = check_results(path());
  EXPECT_FALSE(d.damaged()) << text(d.problems);
  const FileContents c = read_results(path());
  EXPECT_EQ(c.format_minor, 6);
  EXPECT_EQ(c.ws.size(), 4u);
  EXPECT_EQ(c.gen.size(), 8u);  // a gen task has one record per (training, objective)
}

}  // namespace
}  // namespace wordsens::io
