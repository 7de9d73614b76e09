// The consistency check, the input fingerprints and the writer lock, on files built here (the
// damaged files themselves are built by tests/faults with h5py).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "io/results_file.hpp"
#include "io_test_support.hpp"

namespace wordsens::io {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): test helpers

class ConsistencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  [[nodiscard]] std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

const char* kInputs = "embeddings:e.h5 size=100 mtime=2026-01-01T00:00:00Z content=mulrot64:aa\n";

TEST_F(ConsistencyTest, FreshPartialAndCompleteFilesAreConsistentWithoutNotes) {
  const auto tasks = make_tasks(6, 3);
  auto file = ResultsFile::create(path("r.h5"), provenance(config_of(6, 3), true), tasks, false);
  EXPECT_FALSE(check_results(path("r.h5")).damaged());
  for (std::size_t i = 0; i < 4; ++i) append_task(file, tasks[i]);
  append_task(file, tasks[7]);
  file.flush();
  const Diagnosis partial = check_results(path("r.h5"));  // read while the writer holds it
  EXPECT_FALSE(partial.damaged()) << partial.problems.front();
  EXPECT_TRUE(partial.notes.empty());
  for (const auto& t : tasks) {
    if (!file.is_done(t.task_id)) append_task(file, t);
  }
  file.write_summaries();
  file.close();
  const Diagnosis complete = check_results(path("r.h5"));
  EXPECT_FALSE(complete.damaged());
  EXPECT_TRUE(complete.notes.empty());
}

TEST_F(ConsistencyTest, DifferingInputsComparesTheContentHashOnly) {
  const std::string touched =
      "embeddings:e.h5 size=100 mtime=2026-02-02T00:00:00Z content=mulrot64:aa\n";
  EXPECT_TRUE(differing_inputs(kInputs, kInputs).empty());
  EXPECT_TRUE(differing_inputs(kInputs, touched).empty());  // copied or touched: same data
  const std::string changed =
      "embeddings:e.h5 size=104 mtime=2026-02-02T00:00:00Z content=mulrot64:bb\n";
  const auto diff = differing_inputs(kInputs, changed);
  ASSERT_EQ(diff.size(), 1u);
  EXPECT_NE(diff[0].find("embeddings:e.h5 changed: content mulrot64:aa -> mulrot64:bb"),
            std::string::npos)
      << diff[0];
  EXPECT_NE(diff[0].find("size 100 -> 104"), std::string::npos) << diff[0];
  EXPECT_EQ(differing_inputs(kInputs, "").size(), 1u);  // no longer an input
  EXPECT_EQ(differing_inputs("", kInputs).size(), 1u);  // a new input
  EXPECT_TRUE(differing_inputs("", "").empty());
}

TEST_F(ConsistencyTest, ResumeRefusesAChangedInputAndAcceptsTheSameOne) {
  const auto tasks = make_tasks(3, 0);
  RunProvenance p = provenance(config_of(3, 0));
  p.input_fingerprints = kInputs;
  { auto file = ResultsFile::create(path("r.h5"), p, tasks, false); }
  EXPECT_EQ(read_results(path("r.h5")).provenance.input_fingerprints, kInputs);
  { auto file = ResultsFile::open_for_resume(path("r.h5"), config_of(3, 0), kInputs); }
  const std::string before = file_bytes(path("r.h5"));
  try {
    (void)ResultsFile::open_for_resume(path("r.h5"), config_of(3, 0),
                                       "embeddings:e.h5 size=100 mtime=x content=mulrot64:cc\n");
    FAIL() << "a changed input was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("computed from other input data"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(file_bytes(path("r.h5")), before);
}

TEST_F(ConsistencyTest, MergeRefusesShardsOfDifferentInputData) {
  const auto tasks = make_tasks(4, 0);
  RunProvenance p = provenance(config_of(4, 0));
  p.input_fingerprints = kInputs;
  { auto file = ResultsFile::create(path("a.h5"), p, tasks, false); }
  p.input_fingerprints = "embeddings:e.h5 size=100 mtime=x content=mulrot64:dd\n";
  { auto file = ResultsFile::create(path("b.h5"), p, tasks, false); }
  EXPECT_THROW(ResultsFile::merge({path("a.h5"), path("b.h5")}, path("m.h5"), false, "merge"),
               InputError);
  EXPECT_FALSE(std::filesystem::exists(path("m.h5")));
}

TEST_F(ConsistencyTest, ASecondCreatorOfANewOutputIsRefusedNamingTheFirst) {
  const auto tasks = make_tasks(3, 0);
  auto first = ResultsFile::create(path("r.h5"), provenance(config_of(3, 0)), tasks, false);
  EXPECT_TRUE(std::filesystem::exists(path("r.h5.lock")));
  try {
    (void)ResultsFile::create(path("r.h5"), provenance(config_of(3, 0)), tasks, true);
    FAIL() << "a second creator was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pid " + std::to_string(::getpid())), std::string::npos)
        << e.what();
  }
  first.close();
  EXPECT_FALSE(std::filesystem::exists(path("r.h5.lock")));  // removed by its holder
  // Released: the next writer takes over.
  EXPECT_NO_THROW((void)ResultsFile::open_for_resume(path("r.h5"), config_of(3, 0)));
}

TEST_F(ConsistencyTest, OverwriteReplacesOnlyAResultsFile) {
  { std::ofstream(path("notes.txt")) << "keep me\n"; }
  EXPECT_THROW((void)ResultsFile::create(path("notes.txt"), provenance(config_of(2, 0)),
                                         make_tasks(2, 0), true),
               InputError);
  EXPECT_EQ(file_bytes(path("notes.txt")), "keep me\n");
  {
    auto file =
        ResultsFile::create(path("r.h5"), provenance(config_of(2, 0)), make_tasks(2, 0), false);
  }
  auto file =
      ResultsFile::create(path("r.h5"), provenance(config_of(5, 0)), make_tasks(5, 0), true);
  EXPECT_EQ(file.tasks().size(), 5u);
}

TEST_F(ConsistencyTest, AStaleTemporaryIsRemovedByTheNextWriter) {
  const std::string stale = path("r.h5.tmp-999999");
  { std::ofstream(stale) << "left by a kill -9"; }
  {
    auto file =
        ResultsFile::create(path("r.h5"), provenance(config_of(2, 0)), make_tasks(2, 0), false);
  }
  EXPECT_FALSE(std::filesystem::exists(stale));
}

}  // namespace
}  // namespace wordsens::io
