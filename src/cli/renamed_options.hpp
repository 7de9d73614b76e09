#pragma once
// Options whose spelling changed so that `run`, `ws` and `gen` share one spelling per option
// (the config key is the long option name). An old spelling is refused with one line naming the
// new one, on the command line and in a configuration file alike, instead of a generic "unknown
// option".
#include <string>

namespace wordsens::cli {

/// Throws InputError naming the new spelling when argv uses an old option name
/// ("--origin-starts: now spelled --near-origin-starts").
void reject_renamed_options(int argc, char** argv);

/// The new spelling in a configuration file of an old key ("near-origin-starts" for
/// "origin-starts", "guided-start = false" for "no-guided-start"); "" for any other key.
[[nodiscard]] std::string renamed_key(const std::string& key);

}  // namespace wordsens::cli
