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

namespace wordsens::cli {

// The values of run's keys as written: each is parsed by hand (cli/option_values.hpp, the grid
// layer), so that every key refuses a bad value with a line that starts with its name.
struct RunKeyValues {
  std::string config, experiments, models, gen_models, n, d, gen_n, gen_d, k, mlp_width, N, layers,
      activation, positions, training, objective, data, output, shard, seed, rf_sampling, words,
      words_fraction, word_sets, purpose, heads, mask, trials, walltime, progress, select,
      memory_per_rank, format = "table", calibration = "auto", first_trial = "0", max_trials = "0",
                       encoder, encoder_layer;
  SearchOptionValues search;
  // Switches: "true" when given alone (--dry-run), or the value of --dry-run=true|false and of
  // `dry-run = true|false` in the file.
  std::string overwrite = "false", dry_run = "false", save_witness = "false";
  bool help = false;
};

/// Every key at its declared default (what `wordsens run` with no key given reads).
[[nodiscard]] RunKeyValues default_run_key_values();

/// Adds the study's keys (without the search options, search_options.hpp) to `group`, bound to
/// `values`; each key's format goes to `formats` when given; with a `subset`, only its keys.
void add_study_keys(boost::program_options::options_description& group, RunKeyValues& values,
                    KeyFormats* formats = nullptr, const KeySubset* subset = nullptr);

/// Every key of `wordsens run`, in two groups (the study's, with the search options, and the
/// run's), also appended to `groups` with their captions when given.
[[nodiscard]] boost::program_options::options_description describe_run_keys(
    RunKeyValues& values, KeyFormats* formats = nullptr,
    std::vector<std::pair<std::string, boost::program_options::options_description>>* groups =
        nullptr);

/// The study the keys describe, every value parsed and checked. Throws InputError with one line
/// starting with the key ("trials = '0': …").
[[nodiscard]] StudyConfig resolve_study(const RunKeyValues& values);

/// The run's keys (not part of the configuration) into `options`. Throws InputError.
void resolve_run(const RunKeyValues& values, RunOptions& options);

}  // namespace wordsens::cli
