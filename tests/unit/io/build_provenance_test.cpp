// Which build computed which records: the attribute `builds` (format, parse, the tasks of each
// build), a resume by another build refused, a merge of two builds refused unless allowed and
// then recorded, and a merged file naming its inputs' build. A file "of another build" is made
// here by creating it with RunProvenance::build set.
#include "io/format/build_provenance.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/results_file.hpp"
#include "io_test_support.hpp"

namespace wordsens::io {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): test helpers
using Ids = std::vector<std::uint32_t>;

const BuildId kOther{"0.0.1-other", "0123456789abcdef", "-march=other; GNU 1.0; Release"};

TEST(BuildProvenance, TaskRangesAndTheirLines) {
  EXPECT_EQ(task_ranges({}), "");
  EXPECT_EQ(task_ranges({7}), "7");
  EXPECT_EQ(task_ranges({0, 1, 2, 3, 5, 8, 9}), "0-3,5,8-9");
  const std::vector<BuildTasks> builds{{this_build(), {0, 1, 2, 6}}, {kOther, {3, 4, 5}}};
  const std::string text = detail::format_builds(builds);
  EXPECT_EQ(text.substr(text.find("\n") + 1),
            "software_version=0.0.1-other\tgit_sha=0123456789abcdef\tbuild=-march=other; GNU 1.0; "
            "Release\ttasks=3-5\n");
  const auto parsed = detail::parse_builds(text);
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0].id, this_build());
  EXPECT_EQ(parsed[0].tasks, (Ids{0, 1, 2, 6}));
  EXPECT_EQ(parsed[1].id, kOther);
  EXPECT_EQ(parsed[1].tasks, (Ids{3, 4, 5}));
}

TEST(BuildProvenance, MalformedLinesAreRefused) {
  const std::string good = "software_version=1\tgit_sha=a\tbuild=b\ttasks=";
  EXPECT_NO_THROW((void)detail::parse_builds(good + "0-2\n"));
  for (const std::string& bad : std::vector<std::string>{
           good.substr(0, good.find("\ttasks")) + "\n",          // three fields
           "git_sha=a\tsoftware_version=1\tbuild=b\ttasks=0\n",  // out of order
           good + "2-1\n", good + "3,1\n", good + "x\n",         // not ascending ids
           good + "0-4294967295\n"}) {                           // more tasks than a study
    EXPECT_THROW((void)detail::parse_builds(bad), std::invalid_argument) << bad;
  }
}

TEST(BuildProvenance, TasksOfEachBuildAreTheDoneOnes) {
  FileContents c;
  c.software_version = this_build().software_version;
  c.git_sha = this_build().git_sha;
  c.build = this_build().build;
  c.tasks = make_tasks(6, 0);
  c.done = {1, 1, 0, 1, 1, 1};
  EXPECT_EQ(builds_of(c).size(), 1u);
  EXPECT_EQ(builds_of(c)[0].tasks, (Ids{0, 1, 3, 4, 5}));
  // Listed tasks go to their build (not done ones are dropped); the rest to the root build.
  c.builds = {{kOther, {1, 2, 3}}};
  const auto builds = builds_of(c);
  ASSERT_EQ(builds.size(), 2u);
  EXPECT_EQ(builds[0].id, kOther);
  EXPECT_EQ(builds[0].tasks, (Ids{1, 3}));
  EXPECT_EQ(builds[1].id, c.build_id());
  EXPECT_EQ(builds[1].tasks, (Ids{0, 4, 5}));
}

class BuildFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  [[nodiscard]] std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // The tasks with id % 2 == shard of `tasks` (the plan of `config`), done, computed by `build`
  // (empty: this binary).
  void write_shard(const std::string& name, const std::vector<TaskSpec>& tasks,
                   const std::string& config, int shard, const BuildId& build) {
    RunProvenance p = provenance(config + "shard = " + std::to_string(shard) + "/2\n");
    p.build = build;
    auto file = ResultsFile::create(path(name), p, tasks, false);
    for (const auto& t : tasks) {
      if (static_cast<int>(t.task_id) % 2 == shard) append_task(file, t);
    }
  }
  std::filesystem::path dir_;
};

TEST_F(BuildFilesTest, ResumeByAnotherBuildIsRefused) {
  const auto tasks = make_tasks(4, 0);
  const std::string config = config_of(4, 0);
  RunProvenance p = provenance(config);
  p.build = kOther;
  {
    auto file = ResultsFile::create(path("r.h5"), p, tasks, false);
    append_task(file, tasks[0]);
  }
  const std::string before = file_bytes(path("r.h5"));
  try {
    (void)ResultsFile::open_for_resume(path("r.h5"), config);
    FAIL() << "resumed by another build";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("holds records of another build (software_version 0.0.1-other → "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("resume it with " + describe(kOther)), std::string::npos) << message;
  }
  EXPECT_EQ(file_bytes(path("r.h5")), before);
  // This binary's own file resumes.
  p.build = BuildId{};
  { auto file = ResultsFile::create(path("own.h5"), p, tasks, false); }
  EXPECT_NO_THROW((void)ResultsFile::open_for_resume(path("own.h5"), config));
}

TEST_F(BuildFilesTest, MergeOfTwoBuildsIsRefusedUnlessAllowedThenRecorded) {
  const auto tasks = make_tasks(6, 3);
  write_shard("a.h5", tasks, config_of(6, 3), 0, {});
  write_shard("b.h5", tasks, config_of(6, 3), 1, kOther);
  try {
    ResultsFile::merge({path("a.h5"), path("b.h5")}, path("m.h5"), false, "merge");
    FAIL() << "merged two builds";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("were computed by different builds"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("--allow-mixed-builds"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path("m.h5")));
  ResultsFile::merge({path("a.h5"), path("b.h5")}, path("m.h5"), false, "merge", true);
  const FileContents m = read_results(path("m.h5"));
  EXPECT_EQ(m.build_id(), this_build());  // the first input's
  ASSERT_EQ(m.builds.size(), 2u);
  EXPECT_EQ(m.builds[0].id, this_build());
  EXPECT_EQ(m.builds[0].tasks, (Ids{0, 2, 4, 6, 8}));
  EXPECT_EQ(m.builds[1].id, kOther);
  EXPECT_EQ(m.builds[1].tasks, (Ids{1, 3, 5, 7}));
  // Merged again, the mixed file needs the option again.
  EXPECT_THROW(ResultsFile::merge({path("m.h5")}, path("m2.h5"), false, "merge"), InputError);
}

TEST_F(BuildFilesTest, MergedFileNamesItsInputsBuild) {
  const auto tasks = make_tasks(4, 2);
  write_shard("a.h5", tasks, config_of(4, 2), 0, kOther);
  write_shard("b.h5", tasks, config_of(4, 2), 1, kOther);
  ResultsFile::merge({path("a.h5"), path("b.h5")}, path("m.h5"), false, "merge");
  const FileContents m = read_results(path("m.h5"));
  EXPECT_EQ(m.build_id(), kOther);
  EXPECT_TRUE(m.builds.empty());
}

}  // namespace
}  // namespace wordsens::io
