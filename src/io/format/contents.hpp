#pragma once
// Internal to io/: a whole results file read back into memory, and its summary tables written
// from it.
#include <cstdint>
#include <vector>

#include "io/format/file_contents.hpp"
#include "io/h5/h5.hpp"

namespace wordsens::io::detail {

/// The records of done tasks, sorted (see FileContents), and the task table; provenance
/// attributes are filled too. Works on a file open in any mode. `done`, when given, are the done
/// flags to use, read before any record column was (a live writer's rows are flushed before
/// their flags, so the rows of every task they mark done are visible).
FileContents read_contents(const h5::Handle& file, const ReadOptions& options = {},
                           const std::vector<std::uint8_t>* done = nullptr);

/// Rewrites /summary/ws and /summary/gen from `contents` (SWMR-safe: resizes and writes only).
void write_summary_tables(const h5::Handle& file, const FileContents& contents);

}  // namespace wordsens::io::detail
