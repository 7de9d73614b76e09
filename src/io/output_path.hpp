#pragma once
// Internal to io/: the file-system side of writing a results file. A new file is built under a
// temporary name next to its final one and renamed when ready; only the holder of the writer
// lock (io/files/file_lock.hpp) does any of this, so two writers never interleave.
#include <string>
#include <vector>

namespace wordsens::io::detail {

/// InputError when `path` cannot name an output: empty, a name too long for its directory once
/// ".tmp-<pid>" or ".lock" is appended, or a directory that does not exist.
void check_output_path(const std::string& path);

/// The file that writing `path` replaces: `path` itself, or, when it is a symbolic link to an
/// existing regular file, that file (every link resolved). A new file is built next to it and
/// renamed onto it, so that --overwrite through a link replaces the linked results file and
/// keeps the link, as writing through the link would. A dangling link stays `path` (refused as
/// an existing output).
[[nodiscard]] std::string replaced_file(const std::string& path);

/// "<path>.tmp-<pid>": where this process builds a new file.
[[nodiscard]] std::string temporary_path(const std::string& path);

/// Removes the files "<path>.tmp-<digits>" that no live process holds locked: leftovers of a
/// creation or merge killed before its rename. Call it holding the writer lock of `path`.
/// Returns the paths removed.
std::vector<std::string> remove_stale_temporaries(const std::string& path);

/// InputError unless the existing `path` may be replaced by --overwrite: a regular file that
/// opens as a wordsens results file and that no live process writes.
void check_replaceable(const std::string& path);

/// Renames `temporary` onto `path`. Without `replace` it never replaces an existing `path`
/// (renameat2 RENAME_NOREPLACE, or link + unlink where that is missing) and throws InputError
/// when one appeared meanwhile.
void publish(const std::string& temporary, const std::string& path, bool replace);

}  // namespace wordsens::io::detail
