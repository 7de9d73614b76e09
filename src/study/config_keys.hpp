#pragma once
// Which keys a configuration text may hold (a configuration file of `wordsens run`, or the text a
// results file stores): the study's (study/study_settings.hpp) and the run's, which the command
// line reads and a study ignores (a sharded run's stored text holds `shard`). Here rather than in
// the command line so that a stored text is read with the same rules, and the same messages, as
// the file it came from.
#include <string>
#include <vector>

namespace wordsens {

/// A key whose spelling changed so that `run`, `ws` and `gen` share one spelling per option: an
/// old spelling is refused with one line naming the new one, on the command line and in a
/// configuration file alike, instead of a generic "unknown option".
struct RenamedKey {
  const char* old_name;
  const char* option;  // the new spelling on a command line ("--guided-start=false")
  const char* key;     // … and in a configuration file ("guided-start = false")
};

/// The renaming of an old key or option name ("origin-starts"); null for any other name.
[[nodiscard]] const RenamedKey* renamed_key(const std::string& old_name);

/// The run's keys (not the study's): a configuration may give them, a study ignores them.
[[nodiscard]] const std::vector<std::string>& run_keys();

/// Throws InputError "<at>key … " unless `key` may stand in a configuration text: an old spelling
/// ("<at>key origin-starts is now spelled near-origin-starts"), a key of the command line only
/// (help, config) and an unknown key are refused. `at` is "<where>:<line>: ".
void check_config_key(const std::string& key, const std::string& at);

}  // namespace wordsens
