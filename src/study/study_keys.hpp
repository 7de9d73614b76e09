#pragma once
// The study's keys as a configuration writes them, and the study they describe. Each key is kept
// as text until resolve_study parses it (study/key_values.hpp, the grid parsers), so that every
// key refuses a bad value with a line that starts with its name, whether the text came from a
// configuration file, the command line or a results file's stored configuration.
#include <map>
#include <string>

#include "study/study.hpp"

namespace wordsens {

/// The text of every study key (the rows of study/study_settings.hpp), each at its default until
/// given (a switch, save-witness, at false).
class StudyKeyTexts {
 public:
  StudyKeyTexts();

  /// The text of a study key; std::logic_error for a key the study does not have. The reference
  /// stays valid as long as this object (the command line binds its options to it).
  [[nodiscard]] std::string& operator[](const std::string& key);
  [[nodiscard]] const std::string& operator[](const std::string& key) const;

  /// Whether `key` is a study key (held here).
  [[nodiscard]] bool has(const std::string& key) const { return texts_.count(key) != 0; }

 private:
  std::map<std::string, std::string> texts_;
};

/// The study the keys describe, every value parsed and checked. Throws InputError with one line
/// starting with the key ("trials = '0': …").
[[nodiscard]] StudyConfig resolve_study(const StudyKeyTexts& texts);

/// The search keys (max-evals, rel-tol, the starts, the race …) parsed, their ranges and
/// spellings checked, into `study`. Throws InputError with one line starting with the key
/// ("max-evals = '0': expected …"). Part of resolve_study.
void apply_search_keys(const StudyKeyTexts& texts, StudyConfig& study);

}  // namespace wordsens
