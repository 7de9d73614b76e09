#pragma once
// The options `wordsens ws` and `wordsens gen` share: one model on synthetic texts, one line per
// trial. Declared, validated and turned into a ModelSpec in one place so the two commands keep
// the same spellings, defaults and error messages.
#include <boost/program_options.hpp>
#include <string>

#include "cli/search_options.hpp"
#include "models/shared/feature_map.hpp"
#include "study/study.hpp"

namespace wordsens::cli {

struct TrialOptions {
  std::string model, k_text = "1.0D", positions = "all", format = "text", activation = "relu",
                     rf_sampling = "full";
  // The driver's defaults (StudyConfig), so `ws`, `gen` and `run` agree unless told otherwise.
  long long n = 0, d = 0, trials = StudyConfig{}.grid.trials, seed = StudyConfig{}.seed,
            layers = StudyConfig{}.grid.layers.front();
  SearchOptionValues search;
};

/// Adds --model --n --d --k --layers --activation --rf-sampling --trials --seed --positions
/// --format and the search options (search_options.hpp; with `ws_options` the word-sensitivity
/// ones too), bound to `t`. `positions_help` says what the command does at those positions.
void add_trial_options(boost::program_options::options_description& options, TrialOptions& t,
                       const std::string& positions_help, bool ws_options);

/// The search settings of the command line as a StudyConfig (positions and search options), for
/// ws_options() and gen_options(). Throws InputError with one line.
[[nodiscard]] StudyConfig checked_search_settings(const TrialOptions& t);

/// Parses argv into vm; prints the options and returns false for --help (the command then exits
/// 0). Throws on a bad command line.
[[nodiscard]] bool parse_command_line(int argc, char** argv,
                                      const boost::program_options::options_description& options,
                                      boost::program_options::variables_map& vm);

/// Checks the shared options (required ones present, ranges, spellings) and returns the model
/// they describe (k resolved against D = n·d). Throws InputError with one line.
[[nodiscard]] ModelSpec checked_model_spec(const boost::program_options::variables_map& vm,
                                           const TrialOptions& t);

}  // namespace wordsens::cli
