#pragma once
// What the configuration reference (docs/CONFIG.md) shows of a key besides boost's declaration
// (name, default, meaning): the form of its values and an example. Declared with the key
// (cli/key_table.hpp).
#include <map>
#include <string>

namespace wordsens::cli {

struct KeyFormat {
  std::string type;     // what a value looks like, e.g. "integer grid"
  std::string example;  // INI line(s) using the key, accepted as they stand with the defaults;
                        // a command-line example starts with "--"
};

using KeyFormats = std::map<std::string, KeyFormat>;  // by long name

}  // namespace wordsens::cli
