#pragma once
// The only code that sees the HDF5 C API (src/CMakeLists.txt: only wordsens_io links HDF5).
// Small move-only handles and checked calls: a failed call throws h5::Error naming the call, the
// file and the object, and the cause (the system error of a failed read or write, such as "No
// space left on device"); HDF5's own error-stack printing is switched off (the exception message
// is the one line a user sees).
#include <hdf5.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace wordsens::io::h5 {

/// A failed HDF5 call. what(): "<call> failed for <file>:<object>[: <cause>]".
class Error : public std::runtime_error {
 public:
  Error(const std::string& message, int system_error, std::string cause)
      : std::runtime_error(message), system_error_(system_error), cause_(std::move(cause)) {}
  /// errno of the failed read or write inside HDF5 (ENOSPC, EFBIG, EIO, …); 0 when none.
  [[nodiscard]] int system_error() const { return system_error_; }
  /// strerror(system_error()), or HDF5's innermost message ("" when HDF5 gave none).
  [[nodiscard]] const std::string& cause() const { return cause_; }

 private:
  int system_error_;
  std::string cause_;
};

/// Owns one hid_t and closes it with the matching H5?close. Move-only.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(Handle&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = -1; }
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  [[nodiscard]] hid_t id() const { return id_; }
  [[nodiscard]] bool valid() const { return id_ >= 0; }
  /// Closes now; returns false when the close call failed (destructors ignore it).
  bool reset() noexcept;
  /// Closes now; throws h5::Error (with its cause) when the close call failed.
  void close(const std::string& object);

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

/// Throws h5::Error("<call> failed for <object>: <cause>") when `status` < 0.
hid_t check(hid_t status, const char* call, const std::string& object);

/// Metadata read attempts of a SWMR reader. HDF5 retries a metadata block whose checksum fails
/// (a live writer may be rewriting it) and sleeps between attempts, twice as long each time: on
/// 1.10.8, 28 attempts give up after about 0.3 s, 35 after 34 s, and the default 100 never ends,
/// so a damaged file would hang every reader. A writer rewrites a block in microseconds.
inline constexpr unsigned kSwmrReadAttempts = 28;

/// Switches off HDF5's automatic printing of its error stack for the calling thread (cheap;
/// called by every function that opens or tests a file).
void silence_errors();

enum class Access {
  read,        // read-only; also opens a file a killed writer left "open for write"
  read_write,  // plain read-write (creating objects, shrinking tables, summaries)
  swmr_write,  // single-writer/multiple-reader appends: the on-disk file stays consistent
};

/// Creates (truncating) a file in the latest format (superblock v3, needed for SWMR).
Handle create_file(const std::string& path);
/// Opens a file. For the write modes, the "file is open for write" flags a killed writer leaves
/// behind are cleared (what `h5clear -s` does); use only when no other process writes it.
Handle open_file(const std::string& path, Access access);
/// True when `path` starts with the HDF5 signature (H5Fis_hdf5); false for a missing or foreign
/// file.
bool is_hdf5(const std::string& path);
void flush(const Handle& file);

bool exists(const Handle& loc, const std::string& name);  // a link `name` (one level) exists
Handle create_group(const Handle& loc, const std::string& name);
Handle open_group(const Handle& loc, const std::string& name);
void delete_link(const Handle& loc, const std::string& name);

/// Column element types (1-D chunked datasets with an unlimited maximum size).
template <typename T>
hid_t native_type();  // double, int64, uint32, uint8

/// The file-space page of the files create_file makes, and the bytes Fletcher-32 adds to a chunk.
inline constexpr std::size_t kPageBytes = 4096;
inline constexpr std::size_t kChecksumBytes = 4;

/// Elements per chunk of a column: as many as fill one page with the chunk's checksum (the chunk
/// is the unit HDF5 reads, writes, allocates and checksums; a write of one page is never torn).
std::uint64_t page_chunk_rows(std::size_t element_bytes);

/// A column: 1-D, unlimited, chunks of page_chunk_rows, a Fletcher-32 checksum per chunk.
Handle create_column(const Handle& loc, const std::string& name, hid_t type);
template <typename T>
Handle create_column(const Handle& loc, const std::string& name) {
  return create_column(loc, name, native_type<T>());
}
/// A column of fixed-length strings of `length` bytes (NUL padded).
Handle create_string_column(const Handle& loc, const std::string& name, std::size_t length);
Handle open_dataset(const Handle& loc, const std::string& name);

/// True when the dataset's chunks carry a Fletcher-32 checksum (verified on every read).
bool has_checksum(const Handle& dataset);
/// Reads every row (in blocks of chunks, so in bounded memory) and discards them: a chunk whose
/// checksum fails throws h5::Error naming the dataset and the rows it holds ("rows 0-1023"),
/// with is_data_checksum() true; other failures (metadata HDF5 cannot read) throw as usual.
bool is_data_checksum(const Error& error);
void read_every_row(const Handle& dataset);

std::uint64_t length(const Handle& dataset);
void set_length(const Handle& dataset, std::uint64_t rows);  // grows or shrinks

/// Writes `values` at rows [offset, offset + size) (growing the column when needed).
template <typename T>
void write_at(const Handle& dataset, std::uint64_t offset, const std::vector<T>& values);
/// Appends at the end of the column.
template <typename T>
void append(const Handle& dataset, const std::vector<T>& values) {
  write_at(dataset, length(dataset), values);
}
template <typename T>
std::vector<T> read_all(const Handle& dataset);
/// Reads rows [offset, offset + count).
template <typename T>
std::vector<T> read_range(const Handle& dataset, std::uint64_t offset, std::uint64_t count);

/// Every row as stored in the file, without conversion (little-endian numbers, NUL-padded
/// strings); `element_bytes` receives the size of one element.
std::vector<unsigned char> read_stored_bytes(const Handle& dataset, std::size_t& element_bytes);

void append_strings(const Handle& dataset, const std::vector<std::string>& values);
std::vector<std::string> read_strings(const Handle& dataset);

/// Dimensions of a dataset of any rank.
std::vector<std::uint64_t> shape(const Handle& dataset);
enum class TypeClass { integer, floating, string, other };
/// The element class of a dataset (any width: HDF5 converts widths on read).
TypeClass type_class(const Handle& dataset);
/// Reads the hyperslab [start, start + count) of an n-D dataset as doubles into `out`
/// (row-major, prod(count) values).
void read_box(const Handle& dataset, const std::vector<std::uint64_t>& start,
              const std::vector<std::uint64_t>& count, double* out);

// Attributes. Strings are written as fixed-length UTF-8 (h5py reads them as bytes); both
// fixed- and variable-length ones (files of format 1.4 and before) are read.
bool has_attribute(const Handle& loc, const std::string& name);
void write_attribute(const Handle& loc, const std::string& name, const std::string& value);
void write_attribute(const Handle& loc, const std::string& name, std::int64_t value);
void write_attribute(const Handle& loc, const std::string& name, double value);
void write_attribute(const Handle& loc, const std::string& name, const std::vector<int>& value);
/// An array of strings (`scalar`: a scalar attribute holding value[0]).
void write_attribute(const Handle& loc, const std::string& name,
                     const std::vector<std::string>& value, bool scalar = false);
void write_attribute(const Handle& loc, const std::string& name,
                     const std::vector<std::int64_t>& value);
void write_attribute(const Handle& loc, const std::string& name, const std::vector<double>& value);
/// A boolean as h5py writes one (an 8-bit enum of FALSE = 0 and TRUE = 1), which it reads as bool.
void write_bool_attribute(const Handle& loc, const std::string& name, bool value);
/// The number of attributes of an object (from its header; no attribute is read).
std::size_t attribute_count(const Handle& loc);

/// An attribute read whatever its type: its class, whether it is a scalar, and its values in the
/// member of that class (integers as int64, floats as double, strings, booleans as 0/1 integers).
struct AttributeValue {
  enum class Class { integer, floating, string, boolean, other } type = Class::other;
  bool scalar = true;
  std::vector<std::int64_t> integers;
  std::vector<double> reals;
  std::vector<std::string> strings;
};
AttributeValue read_attribute_value(const Handle& loc, const std::string& name);

std::string read_string_attribute(const Handle& loc, const std::string& name);
/// Whether the attribute is a variable-length string (reads its type only).
bool is_variable_string_attribute(const Handle& loc, const std::string& name);
std::int64_t read_int_attribute(const Handle& loc, const std::string& name);
double read_double_attribute(const Handle& loc, const std::string& name);
std::vector<int> read_int_array_attribute(const Handle& loc, const std::string& name);

}  // namespace wordsens::io::h5
