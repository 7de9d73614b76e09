#pragma once
// The one declaration of a key of `wordsens run`: boost's option (name, value, default, meaning)
// together with what the configuration reference (docs/CONFIG.md) shows besides: the form of
// its values and an example. The parser and the reference read the same declaration, so a key
// cannot be added, renamed or given another default without the reference following.
#include <boost/program_options.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cli/key_format.hpp"

namespace wordsens::cli {

/// Adds keys to a group of options, recording each key's format in `formats` (when not null).
class KeyTable {
 public:
  KeyTable(boost::program_options::options_description& group, KeyFormats* formats)
      : group_(group), formats_(formats) {}

  /// `name` as boost spells it ("output,o"); `value` is owned by the group from then on.
  KeyTable& operator()(const char* name, const boost::program_options::value_semantic* value,
                       KeyFormat format, const char* meaning);

 private:
  boost::program_options::options_description& group_;
  KeyFormats* formats_;
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
