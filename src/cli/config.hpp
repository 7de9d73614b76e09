#pragma once
// Options of `wordsens run`: an INI file plus `--key=value` overrides (the command line wins).
// Every INI key is also a command-line option. Parsing resolves and validates everything that
// can be checked without touching a file, so bad input fails with one line and exit code 2
// before the results file is opened.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "study/data_source.hpp"
#include "study/shard.hpp"
#include "study/study.hpp"

namespace wordsens::cli {

/// Bad command line or configuration: one-line message, exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunOptions {
  StudyConfig study;
  std::string config_path;  // "" when no INI file was given
  std::string output = "results.h5";
  bool overwrite = false;
  bool dry_run = false;
  bool help = false;
  double walltime = 0;  // seconds; 0: none
  double progress_interval = 10;
  Shard shard;
  std::string command_line;  // argv joined by spaces (provenance)
};

/// Parses argv of `wordsens run` (argv[0] is "run"). Throws UsageError (one line).
[[nodiscard]] RunOptions parse_run_options(int argc, char** argv);

/// `wordsens run --help`: every option with its default and meaning.
[[nodiscard]] std::string run_help_text();

/// The canonical configuration text stored in the file and compared on resume: the study's
/// keys, plus `shard = i/N` for a sharded run (merge ignores it, see io/schema.hpp kShardKeys).
/// Leaves out what may change between resumes: output, overwrite, dry-run, walltime, progress.
[[nodiscard]] std::string config_text(const RunOptions& options);

/// The data source named by `data` (config_data_source.cpp: the one switch between sources).
/// Throws UsageError for an unknown or unusable source.
[[nodiscard]] std::unique_ptr<DataSource> make_data_source(const StudyConfig& study);

/// Checks that the data source can serve every grid point (e.g. enough long-enough texts);
/// throws UsageError.
void check_data_source(const StudyConfig& study, const std::vector<TaskSpec>& tasks);

/// The files the data source reads (none for synthetic data).
[[nodiscard]] std::vector<std::string> input_file_paths(const StudyConfig& study);

/// The fingerprint of every input file, one line each: "<data> size=<bytes> mtime=<UTC>
/// content=<hash of the datasets used>" (io::RunProvenance::input_fingerprints); "" for
/// synthetic data. Reads each file whole. Throws UsageError when a file cannot be read.
[[nodiscard]] std::string input_fingerprints(const StudyConfig& study);

}  // namespace wordsens::cli
