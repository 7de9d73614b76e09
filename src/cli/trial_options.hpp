#pragma once
// The options `wordsens ws` and `wordsens gen` share: one model on synthetic texts, one line per
// trial. Declared, validated and turned into a ModelSpec in one place so the two commands keep
// the same spellings, defaults and error messages.
#include <boost/program_options.hpp>
#include <string>

#include "models/feature_map.hpp"

namespace wordsens::cli {

struct TrialOptions {
  std::string model, k_text = "1.0D", positions = "all", format = "text", activation = "relu",
                     rf_sampling = "full";
  long long n = 0, d = 0, trials = 1, seed = 1, layers = 1, max_evals = 300;
};

/// Adds --model --n --d --k --layers --activation --rf-sampling --trials --seed --positions
/// --max-evals --format, bound to `t`. `positions_help` says what the command does at those
/// positions.
void add_trial_options(boost::program_options::options_description& options, TrialOptions& t,
                       const std::string& positions_help);

/// Parses argv into vm; prints the options and returns false for --help (the command then exits
/// 0). Throws on a bad command line.
[[nodiscard]] bool parse_command_line(int argc, char** argv,
                                      const boost::program_options::options_description& options,
                                      boost::program_options::variables_map& vm);

/// Throws std::invalid_argument(message) unless ok (the commands report it as a usage error).
void require(bool ok, const std::string& message);

/// Checks the shared options (required ones present, ranges, spellings) and returns the model
/// they describe (k resolved against D = n·d). Throws std::invalid_argument with one line.
[[nodiscard]] ModelSpec checked_model_spec(const boost::program_options::variables_map& vm,
                                           const TrialOptions& t);

}  // namespace wordsens::cli
