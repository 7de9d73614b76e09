// run_study without mpirun: ranks are threads of this process (tests/unit/in_memory_transport.hpp),
// the file is real. The MPI runs (tests/mpi) check the same driver across processes.
#include "driver/run_study.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "io/results_file.hpp"
#include "parallel/stop.hpp"
#include "study/run_task.hpp"
#include "study/task_output.hpp"
#include "unit/in_memory_transport.hpp"

namespace wordsens {
namespace {

namespace fs = std::filesystem;

class RunStudy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("wordsens_run_study_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    options_.output = (dir_ / "results.h5").string();
    options_.progress_interval = 1000;
    options_.command_line = "run_study_test";
    StudyConfig& s = options_.study;
    s.grid.experiments = {Experiment::ws, Experiment::gen};
    s.grid.models = {ModelKind::rf, ModelKind::raf};
    s.grid.n = {4};
    s.grid.d = {3};
    s.grid.N = {5};
    s.grid.trials = 2;
    s.seed = 7;
    s.search.max_evals = 40;
    tasks_ = plan_tasks(s);
    parallel::clear_stop_request();
  }
  void TearDown() override {
    fs::remove_all(dir_);
    parallel::clear_stop_request();
  }

  // Runs the study on `ranks` threads; returns rank 0's outcome (the others must agree) and its
  // log in `log`.
  StudyOutcome run(int ranks = 1) {
    tasks_ = plan_tasks(options_.study);
    const SyntheticSource data(options_.study.seed);
    const StudyInputs inputs{tasks_, data, {}};
    testing::InMemoryNetwork network(ranks);
    std::vector<StudyOutcome> outcomes(static_cast<std::size_t>(ranks));
    std::ostringstream log;
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r) {
      threads.emplace_back([&, r] {
        const testing::InMemoryTransport transport(network, r);
        std::ostringstream quiet;
        outcomes[static_cast<std::size_t>(r)] =
            run_study(options_, inputs, transport, r == 0 ? log : quiet);
      });
    }
    for (auto& t : threads) t.join();
    for (const StudyOutcome& o : outcomes) {
      EXPECT_EQ(o.end, outcomes[0].end);
      EXPECT_EQ(o.started, outcomes[0].started);
    }
    log_ = log.str();
    return outcomes[0];
  }

  [[nodiscard]] std::string file_bytes() const {
    std::ifstream in(options_.output, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  fs::path dir_;
  RunOptions options_;
  std::vector<TaskSpec> tasks_;
  std::string log_;
};

// A record's bytes without its wall-clock time: equal bytes mean bitwise equal results.
std::vector<std::uint8_t> reproducible_bytes(WsRecord record) {
  record.seconds = 0;
  TaskOutput out;
  out.task_id = record.task_id;
  out.ws = record;
  return encode(out);
}

std::vector<std::uint8_t> reproducible_bytes(GenRecord record) {
  record.seconds = 0;
  TaskOutput out;
  out.task_id = record.task_id;
  out.experiment = Experiment::gen;
  out.gen = {record};
  return encode(out);
}

std::vector<std::vector<std::uint8_t>> records_of(const io::FileContents& file) {
  std::vector<std::vector<std::uint8_t>> records;
  for (const WsRecord& r : file.ws) records.push_back(reproducible_bytes(r));
  for (const GenRecord& r : file.gen) records.push_back(reproducible_bytes(r));
  return records;
}

TEST_F(RunStudy, OneRankStoresEveryTaskAsRunTaskComputesIt) {
  const StudyOutcome outcome = run();
  EXPECT_EQ(outcome.end, StudyEnd::finished);
  EXPECT_TRUE(outcome.started);
  EXPECT_FALSE(outcome.abandoned_compute);
  EXPECT_NE(log_.find("8 tasks planned, 0 already done, 8 to run on 1 rank"), std::string::npos)
      << log_;
  EXPECT_NE(log_.find("finished"), std::string::npos) << log_;

  const io::FileContents file = io::read_results(options_.output);
  ASSERT_EQ(file.tasks.size(), tasks_.size());
  for (const auto done : file.done) EXPECT_EQ(done, 1);
  // Each stored record is what the task gives when computed on its own, from scratch.
  const SyntheticSource data(options_.study.seed);
  std::vector<std::vector<std::uint8_t>> expected;
  for (const TaskSpec& task : tasks_) {
    const TaskOutput out = run_task(task, options_.study, data);
    if (task.experiment == Experiment::ws) expected.push_back(reproducible_bytes(out.ws));
  }
  for (const TaskSpec& task : tasks_) {
    if (task.experiment != Experiment::gen) continue;
    for (const GenRecord& r : run_task(task, options_.study, data).gen) {
      expected.push_back(reproducible_bytes(r));
    }
  }
  EXPECT_EQ(records_of(file), expected);
}

TEST_F(RunStudy, ThreeRanksStoreTheSameRecordsAsOne) {
  ASSERT_EQ(run(1).end, StudyEnd::finished);
  const auto one = records_of(io::read_results(options_.output));
  options_.overwrite = true;
  ASSERT_EQ(run(3).end, StudyEnd::finished);
  EXPECT_EQ(records_of(io::read_results(options_.output)), one);
  EXPECT_EQ(io::read_results(options_.output).provenance.mpi_ranks, 3);
}

TEST_F(RunStudy, RerunningAFinishedStudyRunsNothingAndKeepsItsRecords) {
  ASSERT_EQ(run().end, StudyEnd::finished);
  const auto before = records_of(io::read_results(options_.output));
  EXPECT_EQ(run().end, StudyEnd::finished);
  EXPECT_NE(log_.find("8 already done, 0 to run"), std::string::npos) << log_;
  EXPECT_EQ(records_of(io::read_results(options_.output)), before);
}

TEST_F(RunStudy, ResumingWithAnotherConfigurationIsBadInputAndLeavesTheFileAlone) {
  ASSERT_EQ(run().end, StudyEnd::finished);
  const std::string before = file_bytes();
  options_.study.search.max_evals = 41;
  const StudyOutcome outcome = run(2);
  EXPECT_EQ(outcome.end, StudyEnd::bad_input);
  EXPECT_FALSE(outcome.started);
  EXPECT_NE(log_.find("wordsens run: error: "), std::string::npos) << log_;
  EXPECT_EQ(log_.find('\n'), log_.size() - 1) << "one line: " << log_;
  EXPECT_EQ(file_bytes(), before);
}

TEST_F(RunStudy, AnOutputThatCannotBeCreatedIsBadInputBeforeAnyTask) {
  options_.output = (dir_ / "no_such_dir" / "results.h5").string();
  const StudyOutcome outcome = run();
  EXPECT_FALSE(outcome.started);
  EXPECT_EQ(outcome.end, StudyEnd::bad_input);  // exit 2, as before the driver was a library
  EXPECT_NE(log_.find("wordsens run: error: cannot write "), std::string::npos) << log_;
  EXPECT_NE(log_.find("no_such_dir does not exist"), std::string::npos) << log_;
}

TEST_F(RunStudy, AWalltimeSpentCheckpointsAndTheRerunCompletes) {
  options_.walltime = 1e-9;  // spent before the first task is handed out
  EXPECT_EQ(run(2).end, StudyEnd::checkpointed);
  const io::FileContents partial = io::read_results(options_.output);
  for (const auto done : partial.done) EXPECT_EQ(done, 0);
  EXPECT_TRUE(partial.ws.empty());

  options_.walltime = 0;
  EXPECT_EQ(run(2).end, StudyEnd::finished);
  const auto resumed = records_of(io::read_results(options_.output));
  options_.overwrite = true;
  ASSERT_EQ(run(1).end, StudyEnd::finished);
  EXPECT_EQ(resumed, records_of(io::read_results(options_.output)));
}

TEST_F(RunStudy, AFailingTaskFailsTheRunAndTheOthersRecordsStay) {
  ::setenv("WORDSENS_TEST_FAIL_TASK", "3", 1);
  const StudyOutcome outcome = run();
  ::unsetenv("WORDSENS_TEST_FAIL_TASK");
  EXPECT_EQ(outcome.end, StudyEnd::failed);
  EXPECT_TRUE(outcome.started);
  EXPECT_NE(log_.find("(task 3) failed: injected failure"), std::string::npos) << log_;
  const io::FileContents file = io::read_results(options_.output);
  EXPECT_EQ(file.done.at(3), 0);
  for (const WsRecord& r : file.ws) EXPECT_NE(r.task_id, 3U);
  // The rerun does the rest.
  EXPECT_EQ(run().end, StudyEnd::finished);
  for (const auto done : io::read_results(options_.output).done) EXPECT_EQ(done, 1);
}

TEST_F(RunStudy, AShardRunsOnlyItsTasks) {
  options_.shard = Shard::parse("1/3");
  ASSERT_EQ(run(2).end, StudyEnd::finished);
  EXPECT_NE(log_.find("8 tasks planned, 3 in shard 1/3, 0 already done, 3 to run"),
            std::string::npos)
      << log_;
  const io::FileContents file = io::read_results(options_.output);
  for (std::size_t i = 0; i < file.done.size(); ++i) {
    EXPECT_EQ(file.done[i], i % 3 == 1 ? 1 : 0) << "task " << i;
  }
}

}  // namespace
}  // namespace wordsens
