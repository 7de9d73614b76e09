#pragma once
// /config (format 1.11): the keys of config_text, each an attribute of its own typed by its kind
// (study/study_settings.hpp): integers as int64, reals as float64, switches as h5py's booleans,
// lists as 1-D arrays, text as fixed-length strings. Made from config_text itself, so that the two
// cannot say different things; integrity/stored_config_check.cpp checks the two agree. Internal
// to io/ (its markdown table is declared in format/format_doc.hpp).
#include <string>

#include "io/h5/h5.hpp"

namespace wordsens::io {

/// Creates /config holding config_text's settings.
void write_stored_config(const h5::Handle& file, const std::string& config_text);

}  // namespace wordsens::io
