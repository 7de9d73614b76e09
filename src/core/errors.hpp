#pragma once
// The two ways wordsens refuses to go on, for every layer: bad input (exit code 2) and a damaged
// results file (exit code 1). In core so that the layer that finds the problem throws the type
// the command reports, and no layer above translates one exception into another: the CLI maps
// InputError to exit 2, DamagedFileError and every other exception to exit 1
// (docs/COMMANDS.md "Exit codes"). The message is one line; a layer above may add where the
// problem is (the file, the task), keeping the type.
#include <stdexcept>
#include <string>

namespace wordsens {

/// Bad input rather than a failed computation: a malformed command line, configuration or grid,
/// an unknown model, a missing or unreadable input file, a results file that is not one of ours,
/// has a newer major format version, belongs to a different configuration or input data, is
/// written by another process, or overlaps another merge input. Exit code 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A wordsens results file that cannot be trusted: HDF5 cannot read its metadata, or its tables
/// contradict each other (io/integrity/consistency.cpp). Exit code 1, like any failed I/O; the file
/// is left as it is. The message names the file and the (first) problem.
class DamagedFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws InputError(message) unless ok: a check of input where it is read.
inline void require_input(bool ok, const std::string& message) {
  if (!ok) throw InputError(message);
}

}  // namespace wordsens
