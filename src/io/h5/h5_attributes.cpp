// Checked wrappers of HDF5's attributes (see h5.hpp): strings are written fixed-length, and
// the variable-length strings of older files are read only from a sound global heap.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "io/h5/global_heap.hpp"
#include "io/h5/h5.hpp"
#include "io/h5/h5_paths.hpp"

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
  // At least one byte: HDF5 refuses a null buffer, even for no strings.
  std::vector<char> data(std::max<std::size_t>(value.size() * size, 1), '\0');
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

namespace {

// A 1-D attribute of numbers: stored as `file_type`, written from memory as `memory_type`.
template <typename T>
void write_numbers(const Handle& loc, const std::string& name, const std::vector<T>& value,
                   hid_t file_type, hid_t memory_type) {
  const std::string where = child_path(loc, "@" + name);
  const Handle space = vector_space(value.size(), where);
  const Handle attribute = new_attribute(loc, name, file_type, space.id());
  const T none{};  // HDF5 refuses a null buffer, even for no values
  check(H5Awrite(attribute.id(), memory_type, value.empty() ? &none : value.data()), "H5Awrite",
        where);
}

}  // namespace

void write_attribute(const Handle& loc, const std::string& name, const std::vector<int>& value) {
  write_numbers(loc, name, value, H5T_STD_I32LE, H5T_NATIVE_INT);
}

void write_attribute(const Handle& loc, const std::string& name,
                     const std::vector<std::int64_t>& value) {
  write_numbers(loc, name, value, H5T_STD_I64LE, H5T_NATIVE_INT64);
}

void write_attribute(const Handle& loc, const std::string& name, const std::vector<double>& value) {
  write_numbers(loc, name, value, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE);
}

namespace {

// h5py's boolean: an enum over int8 whose members are FALSE (0) and TRUE (1).
Handle bool_type(const std::string& where) {
  Handle type(check(H5Tenum_create(H5T_NATIVE_INT8), "H5Tenum_create", where), H5Tclose);
  const std::int8_t no = 0, yes = 1;
  check(H5Tenum_insert(type.id(), "FALSE", &no), "H5Tenum_insert", where);
  check(H5Tenum_insert(type.id(), "TRUE", &yes), "H5Tenum_insert", where);
  return type;
}

// Whether a stored enum type is that boolean (two members, FALSE = 0 and TRUE = 1).
bool is_bool_type(hid_t stored) {
  if (H5Tget_class(stored) != H5T_ENUM || H5Tget_nmembers(stored) != 2) return false;
  for (const auto& [member, value] : {std::pair{"FALSE", 0}, std::pair{"TRUE", 1}}) {
    std::int8_t stored_value = -1;
    if (H5Tenum_valueof(stored, member, &stored_value) < 0) return false;
    if (stored_value != value) return false;
  }
  return true;
}

}  // namespace

void write_bool_attribute(const Handle& loc, const std::string& name, bool value) {
  const std::string where = child_path(loc, "@" + name);
  const Handle type = bool_type(where);
  const Handle space = scalar_space(where);
  const Handle attribute = new_attribute(loc, name, type.id(), space.id());
  const std::int8_t stored = value ? 1 : 0;
  check(H5Awrite(attribute.id(), type.id(), &stored), "H5Awrite", where);
}

std::size_t attribute_count(const Handle& loc) {
  const std::string where = child_path(loc, "@*");
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t info;
  check(H5Oget_info3(loc.id(), &info, H5O_INFO_NUM_ATTRS), "H5Oget_info3", where);
#else
  H5O_info_t info;
  check(H5Oget_info2(loc.id(), &info, H5O_INFO_NUM_ATTRS), "H5Oget_info2", where);
#endif
  return static_cast<std::size_t>(info.num_attrs);
}

AttributeValue read_attribute_value(const Handle& loc, const std::string& name) {
  const std::string where = child_path(loc, "@" + name);
  const Handle attribute = open_attribute(loc, name);
  const Handle stored(check(H5Aget_type(attribute.id()), "H5Aget_type", where), H5Tclose);
  const Handle space(check(H5Aget_space(attribute.id()), "H5Aget_space", where), H5Sclose);
  AttributeValue out;
  out.scalar = H5Sget_simple_extent_type(space.id()) == H5S_SCALAR;
  const std::size_t size = attribute_size(attribute, where);
  const H5T_class_t type_class = H5Tget_class(stored.id());
  if (size == 0) {  // an empty list (HDF5 reads nothing into no buffer)
    out.type = type_class == H5T_INTEGER  ? AttributeValue::Class::integer
               : type_class == H5T_FLOAT  ? AttributeValue::Class::floating
               : type_class == H5T_STRING ? AttributeValue::Class::string
                                          : AttributeValue::Class::other;
    return out;
  }
  switch (type_class) {
    case H5T_INTEGER:
      out.type = AttributeValue::Class::integer;
      out.integers.resize(size);
      check(H5Aread(attribute.id(), H5T_NATIVE_INT64, out.integers.data()), "H5Aread", where);
      break;
    case H5T_FLOAT:
      out.type = AttributeValue::Class::floating;
      out.reals.resize(size);
      check(H5Aread(attribute.id(), H5T_NATIVE_DOUBLE, out.reals.data()), "H5Aread", where);
      break;
    case H5T_ENUM:
      if (is_bool_type(stored.id())) {
        out.type = AttributeValue::Class::boolean;
        std::vector<std::int8_t> values(size);
        const Handle type = bool_type(where);
        check(H5Aread(attribute.id(), type.id(), values.data()), "H5Aread", where);
        out.integers.assign(values.begin(), values.end());
      }
      break;
    case H5T_STRING:
      if (H5Tis_variable_str(stored.id()) > 0) break;  // never written here: `other`
      {
        out.type = AttributeValue::Class::string;
        const std::size_t length = H5Tget_size(stored.id());
        std::vector<char> data(size * length, '\0');
        check(H5Aread(attribute.id(), stored.id(), data.data()), "H5Aread", where);
        for (std::size_t i = 0; i < size; ++i) {
          std::string value(data.data() + i * length, length);
          value.resize(std::min(value.find('\0'), value.size()));
          out.strings.push_back(std::move(value));
        }
      }
      break;
    default:
      break;
  }
  return out;
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
