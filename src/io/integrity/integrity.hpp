#pragma once
// Internal to io/: the damage rules of a results file (analysis/FORMAT.md, "Crash safety …"):
// what every reader checks before it trusts a file.
#include <string>

#include "io/format/file_contents.hpp"
#include "io/h5/h5.hpp"

namespace wordsens::io::detail {

/// The consistency of an open results file (io/integrity/consistency.cpp): every problem that makes
/// it damaged, and notes on the legitimate leftovers of a killed writer. Reads only the row columns
/// it needs (task ids, done flags, keys, offsets and lengths). HDF5 read errors throw.
Diagnosis diagnose(const h5::Handle& file);

/// The content checks of diagnose (io/integrity/content_checks.cpp): every dataset reads back
/// through its checksums, record values are in range, the task table matches its checksum and the
/// plan of config_text (study/config_text.hpp). Adds problems and notes to `d`.
void check_content(const h5::Handle& file, int minor, Diagnosis& d);

/// The invariants of every record of a done task (io/integrity/record_checks.cpp, the rules of
/// study/record_invariants.hpp): adds one problem per invariant broken, with its first record.
/// Reads every record (without witnesses): call it on a file whose tables are consistent.
void check_record_invariants(const h5::Handle& file, Diagnosis& d);

/// Throws DamagedFileError naming the first problem when `diagnosis` has any.
void require_consistent(const std::string& path, const Diagnosis& diagnosis);

/// /config (format 1.11 on) against config_text (integrity/stored_config_check.cpp): adds a
/// problem when it is missing, holds another set of keys, or a value of another kind or value.
void check_stored_config(const h5::Handle& file, int minor, const std::string& config_text,
                         Diagnosis& d);

}  // namespace wordsens::io::detail
