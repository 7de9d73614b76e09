// Checked wrappers of HDF5's attributes (see h5.hpp): strings are written fixed-length, and
// the variable-length strings of older files are read only from a sound global heap.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "io/global_heap.hpp"
#include "io/h5.hpp"
#include "io/h5_paths.hpp"

namespace wordsens::io::h5 {

using detail::child_path;
using detail::file_name;

namespace {

Handle new_attribute(const Handle& loc, const std::string& name, hid_t type, hid_t space) {
  const std::string where = child_path(loc, "@" + name);
  if (check(H5Aexists(loc.id(), name.c_str()), "H5Aexists", where) > 0) {
    check(H5Adelete(loc.id(), name.c_str()), "H5Adelete", where);
  }
  return {check(H5Acreate2(loc.id(), name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
                "H5Acreate2", where),
          H5Aclose};
}

Handle open_attribute(const Handle& loc, const std::string& name) {
  return {
      check(H5Aopen(loc.id(), name.c_str(), H5P_DEFAULT), "H5Aopen", child_path(loc, "@" + name)),
      H5Aclose};
}

Handle variable_string_type(const std::string& where) {
  Handle type(check(H5Tcopy(H5T_C_S1), "H5Tcopy", where), H5Tclose);
  check(H5Tset_size(type.id(), H5T_VARIABLE), "H5Tset_size", where);
  check(H5Tset_cset(type.id(), H5T_CSET_UTF8), "H5Tset_cset", where);
  return type;
}

// Fixed-length (NUL padded) UTF-8: stored in the object header, which HDF5 checksums. A
// variable-length string lives in the global heap instead, which has no checksum, and HDF5
// follows a damaged heap entry's length past its buffer (a reader killed by SIGSEGV).
Handle fixed_string_type(std::size_t size, const std::string& where) {
  Handle type(check(H5Tcopy(H5T_C_S1), "H5Tcopy", where), H5Tclose);
  check(H5Tset_size(type.id(), size), "H5Tset_size", where);
  check(H5Tset_strpad(type.id(), H5T_STR_NULLPAD), "H5Tset_strpad", where);
  check(H5Tset_cset(type.id(), H5T_CSET_UTF8), "H5Tset_cset", where);
  return type;
}

Handle scalar_space(const std::string& where) {
  return {check(H5Screate(H5S_SCALAR), "H5Screate", where), H5Sclose};
}

Handle vector_space(std::size_t size, const std::string& where) {
  const hsize_t dims = size;
  return {check(H5Screate_simple(1, &dims, nullptr), "H5Screate_simple", where), H5Sclose};
}

std::size_t attribute_size(const Handle& attribute, const std::string& where) {
  const Handle space(check(H5Aget_space(attribute.id()), "H5Aget_space", where), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space.id());
  check(n < 0 ? -1 : 0, "H5Sget_simple_extent_npoints", where);
  return static_cast<std::size_t>(n);
}

}  // namespace

bool has_attribute(const Handle& loc, const std::string& name) {
  return check(H5Aexists(loc.id(), name.c_str()), "H5Aexists", child_path(loc, "@" + name)) > 0;
}

void write_attribute(const Handle& loc, const std::string& name, const std::string& value) {
  write_attribute(loc, name, std::vector<std::string>{value}, true);
}

void write_attribute(const Handle& loc, const std::string& name,
                     const std::vector<std::string>& value, bool scalar) {
  const std::string where = child_path(loc, "@" + name);
  std::size_t size = 1;  // HDF5 has no string type of 0 bytes
  for (const auto& v : value) size = std::max(size, v.size());
  const Handle type = fixed_string_type(size, where);
  const Handle space = scalar ? scalar_space(where) : vector_space(value.size(), where);
  const Handle attribute = new_attribute(loc, name, type.id(), space.id());
  std::vector<char> data(value.size() * size, '\0');
  for (std::size_t i = 0; i < value.size(); ++i) {
    std::memcpy(data.data() + i * size, value[i].data(), value[i].size());
  }
  check(H5Awrite(attribute.id(), type.id(), data.data()), "H5Awrite", where);
}

void write_attribute(const Handle& loc, const std::string& name, std::int64_t value) {
  const std::string where = child_path(loc, "@" + name);
  const Handle space = scalar_space(where);
  const Handle attribute = new_attribute(loc, name, H5T_STD_I64LE, space.id());
  check(H5Awrite(attribute.id(), H5T_NATIVE_INT64, &value), "H5Awrite", where);
}

void write_attribute(const Handle& loc, const std::string& name, double value) {
  const std::string where = child_path(loc, "@" + name);
  const Handle space = scalar_space(where);
  const Handle attribute = new_attribute(loc, name, H5T_IEEE_F64LE, space.id());
  check(H5Awrite(attribute.id(), H5T_NATIVE_DOUBLE, &value), "H5Awrite", where);
}

void write_attribute(const Handle& loc, const std::string& name, const std::vector<int>& value) {
  const std::string where = child_path(loc, "@" + name);
  const Handle space = vector_space(value.size(), where);
  const Handle attribute = new_attribute(loc, name, H5T_STD_I32LE, space.id());
  check(H5Awrite(attribute.id(), H5T_NATIVE_INT, value.data()), "H5Awrite", where);
}

std::string read_string_attribute(const Handle& loc, const std::string& name) {
  const std::string where = child_path(loc, "@" + name);
  const Handle attribute = open_attribute(loc, name);
  const Handle stored(check(H5Aget_type(attribute.id()), "H5Aget_type", where), H5Tclose);
  if (H5Tget_class(stored.id()) != H5T_STRING) {
    throw std::runtime_error("attribute is not a string: " + where);
  }
  if (H5Tis_variable_str(stored.id()) > 0) {
    // Written before format 1.5: the string lives in the global heap, which HDF5 reads without
    // a checksum and without checking its sizes; check it first (detail::global_heap_problem).
    const std::string problem = io::detail::global_heap_problem(file_name(loc.id()));
    if (!problem.empty()) throw Error("H5Aread refused for " + where + ": " + problem, 0, problem);
    const Handle type = variable_string_type(where);
    char* data = nullptr;
    check(H5Aread(attribute.id(), type.id(), &data), "H5Aread", where);
    std::string value = data != nullptr ? data : "";
    const Handle space = scalar_space(where);
    H5Dvlen_reclaim(type.id(), space.id(), H5P_DEFAULT, &data);
    return value;
  }
  // Fixed-length strings (written by other tools, e.g. h5py with numpy bytes).
  const std::size_t size = H5Tget_size(stored.id());
  std::string value(size, '\0');
  check(H5Aread(attribute.id(), stored.id(), value.data()), "H5Aread", where);
  value.resize(std::min(value.find('\0'), value.size()));
  return value;
}

bool is_variable_string_attribute(const Handle& loc, const std::string& name) {
  const std::string where = child_path(loc, "@" + name);
  const Handle attribute = open_attribute(loc, name);
  const Handle stored(check(H5Aget_type(attribute.id()), "H5Aget_type", where), H5Tclose);
  return H5Tget_class(stored.id()) == H5T_STRING && H5Tis_variable_str(stored.id()) > 0;
}

std::int64_t read_int_attribute(const Handle& loc, const std::string& name) {
  const std::string where = child_path(loc, "@" + name);
  const Handle attribute = open_attribute(loc, name);
  if (attribute_size(attribute, where) != 1) throw std::runtime_error("not a scalar: " + where);
  std::int64_t value = 0;
  check(H5Aread(attribute.id(), H5T_NATIVE_INT64, &value), "H5Aread", where);
  return value;
}

double read_double_attribute(const Handle& loc, const std::string& name) {
  const std::string where = child_path(loc, "@" + name);
  const Handle attribute = open_attribute(loc, name);
  if (attribute_size(attribute, where) != 1) throw std::runtime_error("not a scalar: " + where);
  double value = 0;
  check(H5Aread(attribute.id(), H5T_NATIVE_DOUBLE, &value), "H5Aread", where);
  return value;
}

std::vector<int> read_int_array_attribute(const Handle& loc, const std::string& name) {
  const std::string where = child_path(loc, "@" + name);
  const Handle attribute = open_attribute(loc, name);
  std::vector<int> value(attribute_size(attribute, where));
  check(H5Aread(attribute.id(), H5T_NATIVE_INT, value.data()), "H5Aread", where);
  return value;
}

}  // namespace wordsens::io::h5
