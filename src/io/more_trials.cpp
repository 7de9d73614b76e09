#include "io/more_trials.hpp"

#include <algorithm>
#include <cstdint>

#include "io/format/layout.hpp"
#include "io/results_file.hpp"

namespace wordsens::io {
namespace {

// A key's integer value in a parsed configuration; 0 when absent (the canonical text leaves out
// first-trial = 0 and max-trials = 0) or not a number.
std::int64_t integer(const std::map<std::string, std::string>& config, const std::string& key) {
  const auto it = config.find(key);
  if (it == config.end()) return 0;
  try {
    return std::stoll(it->second);
  } catch (const std::exception&) {
    return 0;
  }
}

// The file of the look after `have` trials: as jobs/reproduce_paper.sh names it.
std::string look_file(const std::string& path, int look, std::int64_t first, std::int64_t last) {
  const std::string stem =
      path.size() > 3 && path.ends_with(".h5") ? path.substr(0, path.size() - 3) : path;
  return stem + ".look-" + std::to_string(look) + "-trials-" + std::to_string(first) + "-" +
         std::to_string(last) + ".h5";
}

}  // namespace

std::string more_trials_advice(const std::string& path, const std::string& stored,
                               const std::string& wanted) {
  const auto keys = differing_config_keys(stored, wanted);
  const bool only_trials = std::find(keys.begin(), keys.end(), "trials") != keys.end() &&
                           std::all_of(keys.begin(), keys.end(), [](const std::string& k) {
                             return k == "trials" || k == "max-trials";
                           });
  if (!only_trials) return "";
  const auto old_config = detail::parse_config(stored);
  const auto new_config = detail::parse_config(wanted);
  const std::int64_t have = integer(old_config, "trials");
  const std::int64_t cap = integer(old_config, "max-trials");
  if (integer(new_config, "trials") <= have || integer(old_config, "first-trial") != 0) return "";
  if (cap <= have) {
    return "; this study planned one look (no max-trials above its " + std::to_string(have) +
           " trials), so trials added after its verdicts would not hold the verdict rules' "
           "level: plan the looks of a new study (e.g. --trials=" +
           std::to_string(have) + " --max-trials=" + std::to_string(2 * have) +
           ") in another output";
  }
  // The schedule of looks doubles from the first batch up to the cap (analysis:
  // claims/sequential.py).
  const std::int64_t next = std::min(cap, 2 * have);
  return "; to add trials, keep this file and run the study's next look into another: the same "
         "command with its --trials and --output replaced by --first-trial=" +
         std::to_string(have) + " --trials=" + std::to_string(next - have) +
         " --output=" + look_file(path, 2, have, next) +
         ", then report both files together (wordsens-report --next-batch names the points that "
         "still need it)";
}

}  // namespace wordsens::io
