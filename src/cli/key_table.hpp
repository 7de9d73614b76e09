#pragma once
// The one declaration of a key of `wordsens run`: boost's option (name, value, default, meaning)
// together with what the configuration reference (docs/CONFIG.md) shows besides: the form of
// its values and an example. The parser and the reference read the same declaration, so a key
// cannot be added, renamed or given another default without the reference following.
#include <boost/program_options.hpp>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli/key_format.hpp"

namespace wordsens::cli {

/// The keys of a declaration that another command takes (`wordsens ws` and `gen` take some of
/// run's study keys): the others are left out. A required key is declared without its default,
/// which is a grid or a list where that command takes one value that it cannot guess; a key
/// whose use differs there (one value rather than a grid) is described in that command's words.
struct KeySubset {
  std::set<std::string> keys;
  std::vector<std::string> required;  // in the order their absence is reported
  std::map<std::string, std::string> meanings;
};

/// A switch's value: `--name` alone means true; `--name=true|false` (and `name = true|false` in
/// the file) says which. Its help shows no default (false).
[[nodiscard]] boost::program_options::typed_value<std::string>* switch_value(std::string* target);

/// Adds keys to a group of options, recording each key's format in `formats` (when not null);
/// with a `subset`, only its keys.
class KeyTable {
 public:
  KeyTable(boost::program_options::options_description& group, KeyFormats* formats,
           const KeySubset* subset = nullptr)
      : group_(group), formats_(formats), subset_(subset) {}

  /// `name` as boost spells it ("output,o"); `value` is owned by the group from then on (freed
  /// at once when the subset leaves the key out).
  KeyTable& operator()(const char* name, const boost::program_options::value_semantic* value,
                       KeyFormat format, const char* meaning);

  /// A key of the study (study/study_settings.hpp), described there (its default, form, example
  /// and meaning), kept as written in `target`; a switch is given alone or as =true|false.
  KeyTable& operator()(const char* name, std::string* target);

  /// A key kept as written in `target` (parsed later, so that its own check names it), with
  /// its default as the file would write it.
  KeyTable& operator()(const char* name, std::string* target, const std::string& default_text,
                       KeyFormat format, const char* meaning);

 private:
  [[nodiscard]] bool takes(const std::string& key) const;
  [[nodiscard]] bool requires_value(const std::string& key) const;
  [[nodiscard]] const char* meaning_of(const std::string& key, const char* declared) const;

  boost::program_options::options_description& group_;
  KeyFormats* formats_;
  const KeySubset* subset_;
};

/// The Markdown reference of these groups: for each group its caption and a table of its keys
/// (key, type, default, example, meaning). Throws std::logic_error for a key without a format.
[[nodiscard]] std::string key_reference_table(
    const boost::program_options::options_description& group, const KeyFormats& formats);

/// docs/CONFIG.md: the configuration file's rules (at most `max_config_mib` MiB), then a table
/// per group of keys, titled with its caption.
[[nodiscard]] std::string key_reference_page(
    const std::vector<std::pair<std::string, boost::program_options::options_description>>& groups,
    const KeyFormats& formats, std::size_t max_config_mib);

}  // namespace wordsens::cli
