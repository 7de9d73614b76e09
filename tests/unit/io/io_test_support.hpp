#pragma once
// Shared fixtures of the io tests: a scratch directory, a small task table, and records whose
// values are a pure function of the task id (so any file can be checked against them).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "io/results_file.hpp"
#include "study/config_text.hpp"
#include "study/record_fields.hpp"
#include "study/records.hpp"
#include "study/task.hpp"

namespace wordsens::io::testing {

/// Whether Debian's python3 has h5py (the tests that edit or read a file independently need it).
inline bool has_h5py() { return std::system("/usr/bin/python3 -c 'import h5py' 2>/dev/null") == 0; }

inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("wordsens_io_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// A configuration of `ws_count` ws tasks, then `gen_count` gen tasks (study/config_text.hpp plans
/// it): three trials per grid point where both counts allow it (else two, else one); ws points of
/// rf and raf (rf alone for an odd number of points) at n = 10, 11, …, gen points of raf_relu at
/// gen-n = 10, 11, … and N = 20; d = 4, k = n·d. Its keys sorted, as the writer stores them.
inline std::string config_of(std::uint32_t ws_count, std::uint32_t gen_count) {
  const std::uint32_t trials = ws_count % 3 == 0 && gen_count % 3 == 0   ? 3
                               : ws_count % 2 == 0 && gen_count % 2 == 0 ? 2
                                                                         : 1;
  const std::uint32_t ws_points = ws_count / trials, gen_points = gen_count / trials;
  const bool two_models = ws_points % 2 == 0;
  const auto grid = [](std::uint32_t points) {
    return points <= 1 ? std::string("10") : "10:" + std::to_string(9 + points) + ":step1";
  };
  const std::string experiments = ws_count > 0 && gen_count > 0 ? "ws,gen"
                                  : gen_count > 0               ? "gen"
                                                                : "ws";
  return "N = 20\nd = 4\nexperiments = " + experiments +
         "\ngen-models = raf_relu\ngen-n = " + grid(gen_points) +
         "\nmodels = " + (two_models ? "rf,raf" : "rf") +
         "\nn = " + grid(two_models ? ws_points / 2 : ws_points) +
         "\nseed = 12345\ntrials = " + std::to_string(trials) + "\n";
}

/// The tasks config_of(ws_count, gen_count) plans: what a run of it writes in the task table.
inline std::vector<TaskSpec> make_tasks(std::uint32_t ws_count, std::uint32_t gen_count) {
  return plan_of_config_text(config_of(ws_count, gen_count));
}

inline WsRecord ws_record(const TaskSpec& t) {
  WsRecord r;
  r.task_id = t.task_id;
  r.S = 0.5 + 0.125 * t.task_id + 0.01 * std::sin(t.task_id);
  r.S_upper = t.model == ModelKind::rf ? 2.0 * r.S : std::nan("");
  r.S_upper_scope = t.model == ModelKind::rf ? 1 : 0;
  r.cert_rel_err = 1e-16 * t.task_id;
  r.argmax_position = t.task_id % 7;
  r.phi_norm = 1.0 / (1.0 + t.task_id);
  r.evaluations = 1000 + t.task_id;
  r.starts = 4 + t.task_id % 3;
  r.starts_at_budget = t.task_id % 2;
  r.stationarity = 1e-6 * t.task_id;
  r.S_budget_check = t.trial == 0 ? r.S * 1.001 : std::nan("");
  r.seconds = 0.001 * t.task_id;
  r.witness.assign(static_cast<std::size_t>(t.d), 0.0);
  for (std::size_t j = 0; j < r.witness.size(); ++j) r.witness[j] = t.task_id + 0.1 * j;
  // Ragged columns of varying length (1 to 4 examined positions), and a record that keeps the
  // invariants of a run's (study/record_invariants.hpp): S is the position_S of argmax_position,
  // the largest; argmax_set is {argmax_position}.
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(t.task_id % 4); ++i) {
    if (2 * i != r.argmax_position) r.examined.push_back(2 * i);
  }
  r.examined.push_back(r.argmax_position);
  std::sort(r.examined.begin(), r.examined.end());
  for (const std::int64_t i : r.examined) {
    r.position_S.push_back(i == r.argmax_position ? r.S : r.S * (0.99 - 0.001 * i));
  }
  r.argmax_set = {r.argmax_position};
  return r;
}

inline std::vector<GenRecord> gen_records(const TaskSpec& t) {
  std::vector<GenRecord> rows;
  for (std::uint8_t training = 0; training < 2; ++training) {
    for (std::uint8_t objective = 0; objective < 2; ++objective) {
      GenRecord r;
      r.task_id = t.task_id;
      r.training = training;
      r.objective = objective;
      r.t0 = 1.0 + t.task_id;
      r.t1 = -r.t0 + training;
      r.D0 = 0.25 * objective;
      r.D1 = 0.5 + 0.01 * t.task_id + training + objective;
      r.E = 0.03 * t.task_id + 0.5 * training + 0.25 * objective;  // a square: >= 0
      r.cond_K = 1e3 + t.task_id;
      r.cert_rel_err = 1e-15 * objective;
      r.position = t.task_id % 5;
      r.evaluations = 50 + objective;
      r.seconds = 0.5;
      r.witness.assign(static_cast<std::size_t>(t.d), 0.5);  // Δ*: d values
      r.witness[0] = 1.0 * t.task_id;
      r.witness[1] = 2.0 * training;
      r.witness[2] = 3.0 * objective;
      rows.push_back(r);
    }
  }
  return rows;
}

inline Matrix sample_of(const TaskSpec& t) {
  Matrix X(t.n, t.d);
  for (Index i = 0; i < X.rows(); ++i) {
    for (Index j = 0; j < X.cols(); ++j)
      X(i, j) = t.task_id + 0.01 * static_cast<double>(i * 10 + j);
  }
  return X;
}

/// Appends the record(s) of a task (and its witness arrays when the file stores them).
inline void append_task(ResultsFile& file, const TaskSpec& t) {
  if (file.save_witness()) {
    const Matrix X = sample_of(t);
    file.append_witness(t.task_id, 1, std::vector<double>(static_cast<std::size_t>(t.d), 0.5), X,
                        t.task_id % 2 == 0 ? "W" : "", Matrix::Identity(2, 3));
  }
  if (t.experiment == Experiment::ws) {
    file.append(ws_record(t));
  } else {
    file.append(gen_records(t));
  }
}

/// Python lines, run with `f` an h5py.File open for writing, that delete every dataset, table and
/// root attribute a format after 1.`minor` added (the analysis package's schema.SINCE_MINOR), so
/// that the file looks like one its writer of 1.`minor` left (with the format_version set too):
/// a file holding a newer format's datasets is damage for every reader.
inline std::string strip_to_minor(int minor) {
  const auto analysis = std::filesystem::path(__FILE__).parent_path() / "../../../analysis";
  const std::string m = std::to_string(minor);
  return "import sys\nsys.path.insert(0, '" + analysis.string() +
         "')\nfrom wordsens_analysis.reading import schema as names\n"
         "for p, v in list(names.SINCE_MINOR.items()) + list(names.SINCE_MINOR_TABLES.items()):\n"
         "    if v > " +
         m +
         " and p in f: del f[p]\n"
         "for a, v in names.SINCE_MINOR_ATTRS.items():\n"
         "    if v > " +
         m +
         " and a in f.attrs: del f.attrs[a]\n"
         "f.attrs['format_version'] = np.array([1, " +
         m + "], dtype='int32')\n";
}

inline RunProvenance provenance(const std::string& config_text, bool save_witness = false) {
  RunProvenance p;
  p.command_line = "wordsens run test.ini";
  p.mpi_ranks = 2;
  p.master_seed = 12345;
  p.config_text = config_text;
  p.save_witness = save_witness;
  return p;
}

/// A test that edits a results file with h5py (skipped without it), as a tool or an older writer
/// would have left it: r.h5 in a scratch directory of the test's own, written from `tasks_` under
/// the configuration text `config_`, then changed by a Python snippet.
class EditedFileTest : public ::testing::Test {
 protected:
  EditedFileTest(std::vector<TaskSpec> tasks, std::string config)
      : tasks_(std::move(tasks)), config_(std::move(config)) {}
  void SetUp() override {
    if (!has_h5py()) GTEST_SKIP() << "h5py is needed to edit a file";
    dir_ = scratch_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  [[nodiscard]] std::string path() const { return (dir_ / "r.h5").string(); }

  /// r.h5 with its first `done` tasks done (and its summaries written, with `summaries`), then
  /// `code` run on it by h5py (as `f`).
  void write(std::size_t done, const std::string& code, bool summaries = true) {
    {
      auto file = ResultsFile::create(path(), provenance(config_), tasks_, false);
      for (std::size_t i = 0; i < done; ++i) append_task(file, tasks_[i]);
      if (summaries) file.write_summaries();
    }
    const std::string cmd = "/usr/bin/python3 -c \"import h5py, numpy as np\nf = h5py.File('" +
                            path() + "', 'r+')\n" + code + "\nf.close()\"";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << code;
  }

  /// A run's resume of r.h5: every task not done yet is appended, then the summaries written.
  void resume_the_rest() {
    auto file = ResultsFile::open_for_resume(path(), config_);
    for (const auto& t : tasks_) {
      if (!file.is_done(t.task_id)) append_task(file, t);
    }
    file.write_summaries();
  }

  /// r.h5 with every task done, edited by `code`, is damage its task table's checksum sees
  /// (then removed, for the next edit).
  void expect_checksum_damage(const std::string& code) {
    ASSERT_NO_FATAL_FAILURE(write(tasks_.size(), code));
    const Diagnosis d = check_results(path());
    EXPECT_TRUE(d.damaged()) << code;
    EXPECT_NE(text(d.problems).find("task_table_crc32"), std::string::npos) << code << "\n"
                                                                            << text(d.problems);
    std::filesystem::remove(path());
  }

  /// Python lines, run after the edits of `f`, that store the task table's checksum over its
  /// columns as they are now stored, as the file's writer computed it (FORMAT.md,
  /// task_table_crc32: heads where the table has it).
  [[nodiscard]] static std::string rehash_task_table() {
    return "import zlib\n"
           "crc = zlib.crc32(bytes(f.attrs['config_text']))\n"
           "for c, t in [('task_id', '<u4'), ('point_id', '<u4'), ('experiment', 'u1'), "
           "('model', 'S16'), ('n', '<i8'), ('d', '<i8'), ('k', '<i8'), ('N', '<i8'), "
           "('layers', '<i8'), ('heads', '<i8'), ('words', '<i8'), ('trial', '<u4')]:\n"
           "    if c in f['tasks']:\n"
           "        crc = zlib.crc32(f['tasks'][c][:].astype(t).tobytes(), crc)\n"
           "f.attrs['task_table_crc32'] = np.int64(crc)\n";
  }

  /// Lines (a diagnosis's problems or notes) as one text, for a failure message or a search.
  [[nodiscard]] static std::string text(const std::vector<std::string>& lines) {
    std::string all;
    for (const auto& line : lines) all += line + "\n";
    return all;
  }

  std::filesystem::path dir_;
  std::vector<TaskSpec> tasks_;
  std::string config_;
};

inline std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Bitwise equality of doubles (NaN == NaN), so that tests compare stored bits.
inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Every field of the schema equal bit for bit (NaN == NaN), ragged arrays included.
template <typename Record>
void expect_same_record(const RecordSchema<Record>& schema, const Record& a, const Record& b) {
  for (const auto& field : schema.scalars) {
    std::visit(
        [&](auto member) {
          EXPECT_EQ(std::memcmp(&(a.*member), &(b.*member), sizeof(a.*member)), 0)
              << field.name << " of task " << a.task_id;
        },
        field.member);
  }
  for (const auto& field : schema.ragged) {
    std::visit([&](auto member) { EXPECT_EQ(a.*member, b.*member) << field.name; }, field.member);
  }
}

inline void expect_same_ws(const WsRecord& a, const WsRecord& b) {
  expect_same_record(ws_schema(), a, b);
}

inline void expect_same_gen(const GenRecord& a, const GenRecord& b) {
  expect_same_record(gen_schema(), a, b);
}

}  // namespace wordsens::io::testing
