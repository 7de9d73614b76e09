#pragma once
// The keys of `wordsens run`, declared once: the study's keys (the configuration a results file
// stores) and the run's. `wordsens ws` and `gen` take a subset of the study's keys from the same
// declaration, so a key has one spelling, meaning and parser in every command.
#include <boost/program_options.hpp>

#include <string>
#include <utility>
#include <vector>

#include "cli/key_format.hpp"
#include "cli/key_table.hpp"
#include "cli/search_options.hpp"
#include "driver/run_options.hpp"
#include "study/study.hpp"
#include "study/study_keys.hpp"

namespace wordsens::cli {

// The values of run's keys as written: the study's (parsed by the study, study/study_keys.hpp)
// and the run's (parsed here, cli/run_keys.cpp), so that every key refuses a bad value with a
// line that starts with its name.
struct RunKeyValues {
  StudyKeyTexts study;
  std::string config, output, shard, walltime, progress, memory_per_rank, format = "table",
                                                                          calibration = "auto";
  // Switches: "true" when given alone (--dry-run), or the value of --dry-run=true|false and of
  // `dry-run = true|false` in the file.
  std::string overwrite = "false", dry_run = "false";
  bool help = false;
};

/// Every key at its declared default (what `wordsens run` with no key given reads).
[[nodiscard]] RunKeyValues default_run_key_values();

/// Adds the study's keys (without the search options, search_options.hpp) to `group`, bound to
/// `values`; each key's format goes to `formats` when given; with a `subset`, only its keys.
void add_study_keys(boost::program_options::options_description& group, StudyKeyTexts& values,
                    KeyFormats* formats = nullptr, const KeySubset* subset = nullptr);

/// Every key of `wordsens run`, in two groups (the study's, with the search options, and the
/// run's), also appended to `groups` with their captions when given.
[[nodiscard]] boost::program_options::options_description describe_run_keys(
    RunKeyValues& values, KeyFormats* formats = nullptr,
    std::vector<std::pair<std::string, boost::program_options::options_description>>* groups =
        nullptr);

/// The run's keys (not part of the configuration) into `options`. Throws InputError.
void resolve_run(const RunKeyValues& values, RunOptions& options);

}  // namespace wordsens::cli
