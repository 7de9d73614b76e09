// Round trips, refusals and errors of the results file (io/results_file.hpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "io/format/schema.hpp"
#include "io/results_file.hpp"
#include "io_test_support.hpp"

namespace wordsens::io {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): test helpers

class ResultsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  /// old.h5 of the configuration `config` holding every record of `tasks` (its plan), made to
  /// look like a file of format 1.`minor`: the version set, then `deletions` (Python statements on
  /// the open h5py File `f`) run.
  void forge_older_file(const std::string& config, const std::vector<TaskSpec>& tasks, int minor,
                        const std::string& deletions) {
    {
      auto file = ResultsFile::create(path("old.h5"), provenance(config), tasks, false);
      for (const auto& t : tasks) append_task(file, t);
    }
    const std::string cmd =
        "/usr/bin/python3 -c \"import h5py, numpy, numpy as np; f = h5py.File('" + path("old.h5") +
        "', 'r+')\n" + deletions + "\n" + strip_to_minor(minor) + "\"";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }

  std::filesystem::path dir_;
};

TEST_F(ResultsFileTest, RoundTripOfEveryRecordType) {
  const auto tasks = make_tasks(6, 3);
  {
    auto file = ResultsFile::create(path("r.h5"), provenance(config_of(6, 3), true), tasks, false);
    EXPECT_TRUE(file.save_witness());
    EXPECT_TRUE(file.done_task_ids().empty());
    // Completion order differs from task order, as under dynamic scheduling.
    for (std::uint32_t id : {7u, 2u, 0u, 5u, 6u, 1u}) append_task(file, tasks[id]);
    EXPECT_EQ(file.done_task_ids(), (std::vector<std::uint32_t>{0, 1, 2, 5, 6, 7}));
  }
  const FileContents c = read_results(path("r.h5"));
  EXPECT_EQ(c.filetype, schema::kFileType);
  EXPECT_EQ(c.format_major, schema::kFormatMajor);
  EXPECT_EQ(c.format_minor, schema::kFormatMinor);
  EXPECT_EQ(c.provenance.config_text, config_of(6, 3));
  EXPECT_EQ(c.provenance.command_line, "wordsens run test.ini");
  EXPECT_EQ(c.provenance.mpi_ranks, 2);
  EXPECT_EQ(c.provenance.master_seed, 12345u);
  EXPECT_TRUE(c.provenance.save_witness);
  EXPECT_EQ(c.config_hash.size(), 16u);
  EXPECT_EQ(c.created_utc.size(), 20u);
  ASSERT_EQ(c.tasks.size(), tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    EXPECT_EQ(c.tasks[i].task_id, tasks[i].task_id);
    EXPECT_EQ(c.tasks[i].point_id, tasks[i].point_id);
    EXPECT_EQ(c.tasks[i].experiment, tasks[i].experiment);
    EXPECT_EQ(c.tasks[i].model, tasks[i].model);
    EXPECT_EQ(c.tasks[i].n, tasks[i].n);
    EXPECT_EQ(c.tasks[i].d, tasks[i].d);
    EXPECT_EQ(c.tasks[i].k, tasks[i].k);
    EXPECT_EQ(c.tasks[i].N, tasks[i].N);
    EXPECT_EQ(c.tasks[i].layers, tasks[i].layers);
    EXPECT_EQ(c.tasks[i].trial, tasks[i].trial);
  }
  EXPECT_EQ(c.done, (std::vector<std::uint8_t>{1, 1, 1, 0, 0, 1, 1, 1, 0}));
  ASSERT_EQ(c.ws.size(), 4u);  // sorted by task id
  const std::uint32_t ws_ids[] = {0, 1, 2, 5};
  for (std::size_t i = 0; i < 4; ++i) expect_same_ws(c.ws[i], ws_record(tasks[ws_ids[i]]));
  ASSERT_EQ(c.gen.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    expect_same_gen(c.gen[i], gen_records(tasks[6 + i / 4])[i % 4]);
  }
  // delta + X for every task, W for even task ids.
  std::size_t expected_arrays = 0;
  for (std::uint32_t id : {0u, 1u, 2u, 5u, 6u, 7u}) expected_arrays += id % 2 == 0 ? 3 : 2;
  ASSERT_EQ(c.arrays.size(), expected_arrays);
  EXPECT_EQ(c.array_count, expected_arrays);
  const FileContents light = read_results(path("r.h5"), ReadOptions{false});
  EXPECT_TRUE(light.arrays.empty());
  EXPECT_EQ(light.array_count, expected_arrays);
  ASSERT_EQ(light.ws.size(), 4u);
  EXPECT_TRUE(light.ws[0].witness.empty());
  EXPECT_TRUE(same_bits(light.ws[0].S, c.ws[0].S));
  for (const auto& a : c.arrays) {
    const TaskSpec& t = tasks[a.task_id];
    if (a.name == "X") {
      EXPECT_EQ(a.values, sample_of(t));
      EXPECT_EQ(a.position, -1);
    } else if (a.name == "delta") {
      EXPECT_EQ(a.values.rows(), 1);
      EXPECT_EQ(a.values.cols(), t.d);
      EXPECT_EQ(a.position, 1);
    } else {
      EXPECT_EQ(a.name, "W");
      EXPECT_EQ(a.values, Matrix::Identity(2, 3));
    }
  }
}

TEST_F(ResultsFileTest, WitnessIsNotStoredWithoutSaveWitness) {
  const auto tasks = make_tasks(3, 3);
  {
    auto file = ResultsFile::create(path("r.h5"), provenance(config_of(3, 3), false), tasks, false);
    for (const auto& t : tasks) append_task(file, t);
    file.append_witness(0, 1, {1.0}, Matrix::Zero(1, 1), "W", Matrix::Zero(1, 1));  // no-op
  }
  const auto c = read_results(path("r.h5"));
  ASSERT_EQ(c.ws.size(), 3u);
  EXPECT_TRUE(c.ws[0].witness.empty());
  EXPECT_TRUE(c.gen[0].witness.empty());
  EXPECT_TRUE(c.arrays.empty());
}

TEST_F(ResultsFileTest, AppendRefusesUnknownDoneAndWrongExperimentTasks) {
  const auto tasks = make_tasks(3, 3);
  auto file = ResultsFile::create(path("r.h5"), provenance(config_of(3, 3)), tasks, false);
  file.append(ws_record(tasks[0]));
  EXPECT_THROW(file.append(ws_record(tasks[0])), std::invalid_argument);  // already done
  WsRecord unknown = ws_record(tasks[1]);
  unknown.task_id = 99;
  EXPECT_THROW(file.append(unknown), std::invalid_argument);
  WsRecord wrong = ws_record(tasks[1]);
  wrong.task_id = 4;  // a gen task
  EXPECT_THROW(file.append(wrong), std::invalid_argument);
  EXPECT_THROW(file.append(std::vector<GenRecord>{}), std::invalid_argument);
  file.append(ws_record(tasks[1]));  // still usable: refusals happen before any write
  EXPECT_EQ(file.done_task_ids(), (std::vector<std::uint32_t>{0, 1}));
}

TEST_F(ResultsFileTest, CreateRefusesAnExistingFileAndLeavesItUntouched) {
  const auto tasks = make_tasks(3, 0);
  { auto file = ResultsFile::create(path("r.h5"), provenance(config_of(3, 0)), tasks, false); }
  const std::string before = file_bytes(path("r.h5"));
  try {
    (void)ResultsFile::create(path("r.h5"), provenance(config_of(3, 0)), tasks, false);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--overwrite"), std::string::npos) << e.what();
  }
  EXPECT_EQ(file_bytes(path("r.h5")), before);
  // A failing overwrite (bad task table) leaves it untouched too, and no temporary file.
  auto bad = tasks;
  bad[1].task_id = bad[0].task_id;
  EXPECT_THROW((void)ResultsFile::create(path("r.h5"), provenance(config_of(3, 0)), bad, true),
               std::invalid_argument);
  EXPECT_EQ(file_bytes(path("r.h5")), before);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
  // --overwrite replaces it.
  { auto file = ResultsFile::create(path("r.h5"), provenance("x = 1\n"), tasks, true); }
  EXPECT_EQ(read_results(path("r.h5")).provenance.config_text, "x = 1\n");
}

TEST_F(ResultsFileTest, CreateInAMissingDirectoryIsAnInputError) {
  EXPECT_THROW(
      (void)ResultsFile::create(path("no/such/dir/r.h5"), provenance(config_of(3, 0)), {}, false),
      InputError);
}

TEST_F(ResultsFileTest, ResumeContinuesWhereTheRunStopped) {
  const auto tasks = make_tasks(6, 3);
  {
    auto file = ResultsFile::create(path("r.h5"), provenance(config_of(6, 3), true), tasks, false);
    for (std::uint32_t id : {0u, 6u, 3u}) append_task(file, tasks[id]);
  }
  {
    auto file = ResultsFile::open_for_resume(path("r.h5"), config_of(6, 3));
    EXPECT_EQ(file.done_task_ids(), (std::vector<std::uint32_t>{0, 3, 6}));
    EXPECT_TRUE(file.is_done(6));
    EXPECT_FALSE(file.is_done(1));
    for (const auto& t : tasks) {
      if (!file.is_done(t.task_id)) append_task(file, t);
    }
    file.write_summaries();
  }
  const auto c = read_results(path("r.h5"));
  EXPECT_EQ(c.ws.size(), 6u);
  EXPECT_EQ(c.gen.size(), 12u);
  for (std::size_t i = 0; i < 6; ++i) expect_same_ws(c.ws[i], ws_record(tasks[i]));
}

TEST_F(ResultsFileTest, ResumeWithADifferentConfigurationNamesTheKeys) {
  {
    auto file =
        ResultsFile::create(path("r.h5"), provenance(config_of(3, 0)), make_tasks(3, 0), false);
  }
  const std::string before = file_bytes(path("r.h5"));
  // Another seed and one key more (layers: no model of the study has them).
  std::string changed = config_of(3, 0) + "layers = 2\n";
  changed.replace(changed.find("seed = 12345"), 12, "seed = 7");
  try {
    (void)ResultsFile::open_for_resume(path("r.h5"), changed);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("(differing keys: layers, seed)"), std::string::npos) << message;
    EXPECT_EQ(message.find("trials"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_EQ(file_bytes(path("r.h5")), before);
}

TEST_F(ResultsFileTest, DifferingKeysComparesKeyValueLines) {
  EXPECT_TRUE(differing_config_keys("a = 1\nb=2\n", " b = 2 \na=1").empty());
  EXPECT_EQ(differing_config_keys("a = 1\nb = 2\n", "a = 1\nb = 3\nc = 4\n"),
            (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(differing_config_keys("shard = 0/2\na = 1\n", "shard = 1/2\na = 1\n", {"shard"}),
            std::vector<std::string>{});
  // The oldest writers' texts had an INI section: its keys are named with it.
  EXPECT_EQ(differing_config_keys("[run]\nseed = 1\nn = 4\n", "[run]\nseed = 7\nn = 4\nL = 2\n"),
            (std::vector<std::string>{"run.L", "run.seed"}));
}

TEST_F(ResultsFileTest, NotAWordsensFileIsAnInputError) {
  std::ofstream(path("text.h5")) << "hello\n";
  for (const auto& [name, expected] : std::vector<std::pair<std::string, std::string>>{
           {"text.h5", "not a wordsens"}, {"missing.h5", "no such file"}}) {
    try {
      (void)read_results(path(name));
      FAIL() << "no error for " << name;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)ResultsFile::open_for_resume(path(name), config_of(3, 0)), InputError);
  }
  if (!has_h5py()) GTEST_SKIP() << "h5py not available for the foreign-HDF5 case";
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"import h5py; h5py.File('" + path("other.h5") +
                         "', 'w')['x'] = [1, 2]\"")
                            .c_str()),
            0);
  try {
    (void)read_results(path("other.h5"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a wordsens results file"), std::string::npos);
  }
}

TEST_F(ResultsFileTest, ANewerMajorVersionIsRefused) {
  if (!has_h5py()) GTEST_SKIP() << "h5py is needed to forge a newer version";
  {
    auto file =
        ResultsFile::create(path("r.h5"), provenance(config_of(3, 0)), make_tasks(3, 0), false);
  }
  // A newer minor version is still read.
  const auto set_version = [&](int major, int minor) {
    const std::string cmd = "/usr/bin/python3 -c \"import h5py, numpy; f = h5py.File('" +
                            path("r.h5") + "', 'r+'); f.attrs['format_version'] = numpy.array([" +
                            std::to_string(major) + ", " + std::to_string(minor) +
                            "], dtype='int32')\"";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  };
  set_version(schema::kFormatMajor, schema::kFormatMinor + 5);
  EXPECT_EQ(read_results(path("r.h5")).format_minor, schema::kFormatMinor + 5);
  set_version(schema::kFormatMajor + 1, 0);
  try {
    (void)read_results(path("r.h5"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("upgrade wordsens"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)ResultsFile::open_for_resume(path("r.h5"), config_of(3, 0)), InputError);
}

// A file of format 1.1 (before the evidence columns) is still read: the columns it lacks come
// back as the records' defaults (NaN), its S_upper is an all-positions bound, and resuming it
// is refused with one line instead of failing on a missing column mid-run.
TEST_F(ResultsFileTest, AnOlderMinorVersionIsReadButNotResumed) {
  if (!has_h5py()) GTEST_SKIP() << "h5py is needed to forge an older file";
  const auto tasks = make_tasks(3, 3);
  ASSERT_NO_FATAL_FAILURE(forge_older_file(
      config_of(3, 3), tasks, 1,
      "for c in ['S_upper_scope', 'cert_rel_err', 'starts', 'starts_at_budget', 'stationarity', "
      "'S_budget_check', 'examined_offset', 'examined_length', 'examined_values', "
      "'position_S_offset', 'position_S_length', 'position_S_values']: del f['ws'][c]\n"
      "del f['gen']['cert_rel_err']"));
  const FileContents c = read_results(path("old.h5"));
  EXPECT_EQ(c.format_minor, 1);
  ASSERT_EQ(c.ws.size(), 3u);
  EXPECT_EQ(c.missing_columns.size(), 12u);  // 1.2's evidence and positions, 1.4's word sets
  for (const auto& r : c.ws) {
    const WsRecord want = ws_record(tasks[r.task_id]);
    EXPECT_TRUE(same_bits(r.S, want.S));
    EXPECT_TRUE(std::isnan(r.cert_rel_err));
    EXPECT_TRUE(std::isnan(r.S_budget_check));
    EXPECT_TRUE(r.position_S.empty());
    EXPECT_EQ(r.S_upper_scope, std::isfinite(want.S_upper) ? 1 : 0);
  }
  for (const auto& r : c.gen) EXPECT_TRUE(std::isnan(r.cert_rel_err));
  try {
    (void)ResultsFile::open_for_resume(path("old.h5"), config_of(3, 3));
    FAIL() << "an older file was resumed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("format 1.1"), std::string::npos) << e.what();
  }
}

// A file of format 1.3 (before several changed words) is read with every task changing one
// word and the new ragged columns empty; resuming it is refused (its tables lack them).
TEST_F(ResultsFileTest, AFileBeforeSeveralWordsReadsAsOneWordTasks) {
  if (!has_h5py()) GTEST_SKIP() << "h5py is needed to forge an older file";
  const auto tasks = make_tasks(3, 3);
  ASSERT_NO_FATAL_FAILURE(forge_older_file(
      config_of(3, 3), tasks, 3,
      "del f['tasks']['words']; del f['summary/ws']['words']; del f['summary/gen']['words']\n"
      "for c in ['argmax_set', 'examined_sets', 'set_S']:\n"
      "    for s in ['_offset', '_length', '_values']: del f['ws'][c + s]"));
  const FileContents c = read_results(path("old.h5"));
  EXPECT_EQ(c.format_minor, 3);
  ASSERT_EQ(c.tasks.size(), tasks.size());
  for (const auto& t : c.tasks) EXPECT_EQ(t.words, 1);
  ASSERT_EQ(c.ws.size(), 3u);
  for (const auto& r : c.ws) {
    EXPECT_TRUE(same_bits(r.S, ws_record(tasks[r.task_id]).S));
    EXPECT_TRUE(r.argmax_set.empty() && r.examined_sets.empty() && r.set_S.empty());
  }
  try {
    (void)ResultsFile::open_for_resume(path("old.h5"), config_of(3, 3));
    FAIL() << "a file of format 1.3 was resumed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("format 1.3"), std::string::npos) << e.what();
  }
}

TEST_F(ResultsFileTest, ASecondWriterIsRefusedWhileTheFirstIsAlive) {
  auto file =
      ResultsFile::create(path("r.h5"), provenance(config_of(3, 0)), make_tasks(3, 0), false);
  file.append(ws_record(make_tasks(3, 0)[0]));
  try {
    (void)ResultsFile::open_for_resume(path("r.h5"), config_of(3, 0));
    FAIL() << "no error";
  } catch (const InputError& e) {
    // The second writer is told who the first is.
    const std::string message = e.what();
    EXPECT_NE(message.find("being written by another process"), std::string::npos) << message;
    EXPECT_NE(message.find("pid " + std::to_string(::getpid())), std::string::npos) << message;
  }
  EXPECT_THROW(
      (void)ResultsFile::create(path("r.h5"), provenance(config_of(3, 0)), make_tasks(3, 0), true),
      InputError);
  // Readers may look at a file while it is written.
  EXPECT_EQ(read_results(path("r.h5")).ws.size(), 1u);
}

TEST_F(ResultsFileTest, H5dumpAndH5lsOpenTheFile) {
  const auto tasks = make_tasks(3, 3);
  {
    auto file = ResultsFile::create(path("r.h5"), provenance(config_of(3, 3), true), tasks, false);
    for (const auto& t : tasks) append_task(file, t);
    file.write_summaries();
  }
  if (std::system("command -v h5dump > /dev/null") != 0) GTEST_SKIP() << "no h5dump";
  EXPECT_EQ(std::system(("h5dump -H " + path("r.h5") + " > /dev/null").c_str()), 0);
  EXPECT_EQ(std::system(("h5ls -r " + path("r.h5") + " > /dev/null").c_str()), 0);
  EXPECT_EQ(std::system(("h5dump -d /ws/S " + path("r.h5") + " > /dev/null").c_str()), 0);
}

TEST_F(ResultsFileTest, AMissingColumnMakesTheFileDamagedNamingIt) {
  if (!has_h5py()) GTEST_SKIP() << "h5py is needed to damage a file";
  {
    auto file =
        ResultsFile::create(path("r.h5"), provenance(config_of(3, 0)), make_tasks(3, 0), false);
  }
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"import h5py; f = h5py.File('" + path("r.h5") +
                         "', 'r+'); del f['ws/S']\"")
                            .c_str()),
            0);
  try {
    (void)read_results(path("r.h5"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    FAIL() << "a damaged file is not an input error: " << e.what();
  } catch (const DamagedFileError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("damaged or not a wordsens results file"), std::string::npos) << message;
    EXPECT_NE(message.find("/ws/S is missing"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace wordsens::io
