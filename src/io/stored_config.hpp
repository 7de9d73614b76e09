#pragma once
// /config (format 1.11): the keys of config_text, each an attribute of its own typed by its kind
// (study/study_settings.hpp): integers as int64, reals as float64, switches as h5py's booleans,
// lists as 1-D arrays, text as fixed-length strings. Made from config_text itself, so that the two
// cannot say different things, and checked against it when the file is read. Internal to io/
// (its markdown table is declared in results_file.hpp).
#include <string>

#include "io/h5.hpp"

namespace wordsens::io {

struct Diagnosis;

/// Creates /config holding config_text's settings.
void write_stored_config(const h5::Handle& file, const std::string& config_text);

/// Adds a problem to `d` when /config is missing (format 1.11 on), holds another set of keys than
/// config_text, or a value that differs from config_text's or is of another kind.
void check_stored_config(const h5::Handle& file, int minor, const std::string& config_text,
                         Diagnosis& d);

}  // namespace wordsens::io
