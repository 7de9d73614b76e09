#pragma once
// The two ways a results file, or an input naming one, is refused: bad input (exit 2) and a
// damaged file (exit 1). Their own header so that every part of io/ and the CLI can throw and
// catch them without the results file's interface.
#include <stdexcept>

namespace wordsens::io {

/// Bad input rather than a failed computation: the file is missing, is not a wordsens results
/// file, has a newer major format version, belongs to a different configuration or input data,
/// another process writes it, or the merge inputs overlap. The CLI maps it to exit code 2
/// (kExitUsage). The message is one line.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A wordsens results file that cannot be trusted: HDF5 cannot read its metadata, or its tables
/// contradict each other (io/consistency.cpp). Exit code 1, like any failed I/O; the file is
/// left as it is. The message is one line naming the file and the (first) problem.
class DamagedFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wordsens::io
