#pragma once
// Why a path given as an input file cannot be read as one, in words: a directory, a FIFO or a
// device named where a file is expected must be reported as what it is (not as "does not
// exist"), and must be refused before anything opens it (a FIFO with no writer blocks the
// opener; /dev/zero never ends).
#include <sys/types.h>

#include <string>

namespace wordsens::io {

/// What a file of type `mode` (st_mode) is, for a message: "a directory", "a FIFO", "a character
/// device", "a block device", "a socket", "a symbolic link"; "" for a regular file.
[[nodiscard]] std::string file_kind(mode_t mode);

/// "" when `path` names a regular file (following symbolic links); otherwise why not, to follow
/// its name in a message: "does not exist", "is a symbolic link to a file that does not exist",
/// "is a directory", "is not a regular file (a FIFO)",
/// "cannot be resolved (too many levels of symbolic links: a symbolic link loop?)", "cannot be
/// reached (Permission denied)".
[[nodiscard]] std::string regular_file_problem(const std::string& path);

}  // namespace wordsens::io
