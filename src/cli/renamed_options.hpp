#pragma once
// Options whose spelling changed so that `run`, `ws` and `gen` share one spelling per option
// (the config key is the long option name). An old spelling is refused with one line naming the
// new one, on the command line and in a configuration file alike, instead of boost's generic
// "unrecognised option".
#include <string>

namespace wordsens::cli {

/// Throws std::invalid_argument naming the new spelling when argv uses an old option name.
void reject_renamed_options(int argc, char** argv);

/// The same for the keys of an INI text (`old = value` lines; sections are allowed).
void reject_renamed_keys(const std::string& ini_text, const std::string& path);

}  // namespace wordsens::cli
