#pragma once
// Internal to io/h5*.cpp: how the checked wrappers name a file and an object in their messages
// ("r.h5:/ws/S", "r.h5:/@filetype"). Includes hdf5.h through h5.hpp only.
#include <string>

#include "io/h5/h5.hpp"

namespace wordsens::io::h5::detail {

/// The name of the file holding an object ("" when HDF5 cannot tell).
std::string file_name(hid_t id);
/// "<file>:<path of loc>/<name>".
std::string child_path(const Handle& loc, const std::string& name);

}  // namespace wordsens::io::h5::detail
