#pragma once
// Internal to io/: a check of HDF5's global heap, read as plain bytes before HDF5 reads any
// variable-length string from it. The heap has no checksum, and HDF5 1.10 trusts the sizes in
// it: a damaged size makes it copy past its buffers (SIGSEGV) or loop for ever. Files of format
// 1.5 on have no global heap (their strings are fixed-length); older files keep their string
// attributes there.
#include <string>

namespace wordsens::io::detail {

/// "" when every global heap collection of the file at `path` is well formed: its objects,
/// each a 16-byte header and its data padded to 8 bytes, chain from the collection's header to
/// its end, where the free-space object (index 0) ends exactly. Otherwise the first problem,
/// e.g. "global heap collection at 2048: object 3 runs past the collection's end". Remembers
/// the answer for a file of the same size and modification time.
std::string global_heap_problem(const std::string& path);

}  // namespace wordsens::io::detail
