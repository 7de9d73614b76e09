#include "study/config_keys.hpp"

#include <algorithm>
#include <array>

#include "core/errors.hpp"
#include "study/study_settings.hpp"

namespace wordsens {
namespace {

constexpr std::array<RenamedKey, 3> kRenamed{{
    {"origin-starts", "--near-origin-starts", "near-origin-starts"},
    {"no-guided-start", "--guided-start=false", "guided-start = false"},
    {"no-upper-bound", "--upper-bound=false", "upper-bound = false"},
}};

// Keys of the command line only: refused in a configuration file.
constexpr std::array<const char*, 2> kCommandLineOnly{"help", "config"};

}  // namespace

const RenamedKey* renamed_key(const std::string& old_name) {
  for (const auto& r : kRenamed) {
    if (old_name == r.old_name) return &r;
  }
  return nullptr;
}

const std::vector<std::string>& run_keys() {
  // The names of the run's keys that cli/run_keys.cpp declares (a unit test holds the two
  // together): where the results go and how the run goes, nothing that changes a result.
  static const std::vector<std::string> keys{"output", "overwrite",   "dry-run",
                                             "format", "calibration", "walltime",
                                             "shard",  "progress",    "memory-per-rank"};
  return keys;
}

void check_config_key(const std::string& key, const std::string& at) {
  if (const RenamedKey* renamed = renamed_key(key)) {
    throw InputError(at + "key " + key + " is now spelled " + renamed->key);
  }
  if (std::find(kCommandLineOnly.begin(), kCommandLineOnly.end(), key) != kCommandLineOnly.end()) {
    throw InputError(at + "'" + key + "' is an option of the command line, not a key");
  }
  const auto& run = run_keys();
  if (!setting_kind(key) && std::find(run.begin(), run.end(), key) == run.end()) {
    throw InputError(at + "unknown key '" + key + "' (wordsens run --help lists the keys)");
  }
}

}  // namespace wordsens
