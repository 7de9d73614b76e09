#pragma once
// What `wordsens ws` and `wordsens gen` share: a study of one grid point (one model, one value
// per grid key), read from run's own keys (cli/run_keys.hpp) with run's command-line rules,
// planned and checked as `wordsens run` plans and checks a study, and its trials run by
// run_task one after the other, without MPI or a results file. Trial t is task t of that study: the
// same texts, weights and starts as in a results file of the same configuration.
#include <boost/program_options.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/key_table.hpp"
#include "cli/run_keys.hpp"
#include "core/errors.hpp"
#include "data/data_source.hpp"
#include "study/study.hpp"
#include "study/task_output.hpp"

namespace wordsens::cli {

/// A planned one-point study: its configuration, its trials' tasks and their data source.
struct OnePointStudy {
  StudyConfig config;
  std::vector<TaskSpec> tasks;
  std::unique_ptr<DataSource> data;
};

/// A one-point command's options and what it read from its command line.
class OnePointCommand {
 public:
  /// `name`: "ws" or "gen"; `keys`: the study keys of run it takes (the required ones without
  /// run's default); `ws_search_options`: with the word-sensitivity search options.
  OnePointCommand(std::string name, Experiment experiment, KeySubset keys, const std::string& usage,
                  bool ws_search_options);
  OnePointCommand(const OnePointCommand&) = delete;  // the options are bound to the members
  OnePointCommand& operator=(const OnePointCommand&) = delete;

  /// Parses argv (argv[0] is the command) as run parses its command line; prints the help and
  /// returns false for --help. Throws InputError with one line.
  [[nodiscard]] bool parse(int argc, char** argv);

  /// Whether the command line gave `key` (rather than leaving its default).
  [[nodiscard]] bool given(const std::string& key) const;

  /// --format: "text" or "csv".
  [[nodiscard]] const std::string& format() const { return format_; }

  /// The study of the one grid point, each key checked as run checks it, then the one-point
  /// rules: one model, one value per grid key, no rf-sampling = marginal without rf. Throws
  /// InputError with one line starting with the key.
  [[nodiscard]] StudyConfig study() const;

 private:
  std::string name_;
  Experiment experiment_;
  KeySubset keys_;
  RunKeyValues values_;
  std::string model_, format_ = "text";
  bool help_ = false;
  boost::program_options::options_description described_;
  boost::program_options::variables_map given_;
};

/// The study's tasks (its trials), checked as run checks them before it starts (the plan, the
/// models' sizes, the data source). Throws InputError with one line.
[[nodiscard]] OnePointStudy plan_one_point(StudyConfig config);

/// |Δ*|, the norm of a record's witness (all its changed rows together).
[[nodiscard]] double witness_norm(const std::vector<double>& witness);

/// Runs the trials in order, handing each task's output to `row` as soon as it is done.
void run_trials(const OnePointStudy& study,
                const std::function<void(const TaskSpec&, const TaskOutput&)>& row);

}  // namespace wordsens::cli
