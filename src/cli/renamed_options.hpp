#pragma once
// Options whose spelling changed (study/config_keys.hpp, RenamedKey): an old spelling on the
// command line is refused with one line naming the new one, as in a configuration file, instead
// of a generic "unknown option".
namespace wordsens::cli {

/// Throws InputError naming the new spelling when argv uses an old option name
/// ("--origin-starts: now spelled --near-origin-starts").
void reject_renamed_options(int argc, char** argv);

}  // namespace wordsens::cli
