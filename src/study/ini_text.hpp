#pragma once
// The syntax of a configuration file of `wordsens run` (and of the configuration text a results
// file stores): `key = value` lines, nothing else. Which keys exist is study/config_keys.hpp's
// business; this reader only splits lines, so that every message can name the line.
#include <string>
#include <vector>

namespace wordsens {

struct IniEntry {
  std::string key, value;
  int line = 0;  // 1-based
};

/// The `key = value` lines of `text`, in order. Blank lines and lines whose first non-blank
/// character is '#' or ';' are skipped; a '#' anywhere starts a comment that runs to the end of
/// the line; spaces, tabs and a carriage return around the key and the value are dropped (so
/// `trials =  5 ` is `trials` = `5`); the value may be empty. There are no sections: a
/// `[name]` line is refused rather than silently renaming every key below it. Throws
/// InputError "<where>:<line>: …" for a section header, a line without '=', an empty
/// key, or a key given twice.
[[nodiscard]] std::vector<IniEntry> parse_ini_text(const std::string& text,
                                                   const std::string& where);

}  // namespace wordsens
