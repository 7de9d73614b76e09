// Checked wrappers around the HDF5 C API (see h5.hpp for why they exist).
#include "io/h5/h5.hpp"

#include "io/h5/h5_paths.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace wordsens::io::h5 {

using detail::child_path;
using detail::file_name;

// The name of the file holding an object ("" when HDF5 cannot tell).
std::string detail::file_name(hid_t id) {
  const ssize_t size = H5Fget_name(id, nullptr, 0);
  if (size <= 0) return "";
  std::string file(static_cast<std::size_t>(size) + 1, '\0');
  H5Fget_name(id, file.data(), file.size());
  file.resize(static_cast<std::size_t>(size));
  return file;
}

namespace {

// HDF5's at-exit clean-up closes the files still open. After a failed H5Fclose (a full disk) the
// library keeps a half-closed file whose clean-up dereferences a null pointer (SIGSEGV in
// H5F__close_cb, seen with 1.10.8), so it is switched off: every file here is closed by its
// Handle. It must precede every other HDF5 call, hence a static initializer.
[[maybe_unused]] const bool kNoAtExitCleanUp = [] {
  H5dont_atexit();
  return true;
}();

// The name of the file holding an object and the object's path ("file.h5:/ws/S"); "?" for the
// parts HDF5 cannot tell.
std::string path_of(hid_t id) {
  std::string object = "?";
  if (const ssize_t size = H5Iget_name(id, nullptr, 0); size > 0) {
    object.assign(static_cast<std::size_t>(size) + 1, '\0');
    H5Iget_name(id, object.data(), object.size());
    object.resize(static_cast<std::size_t>(size));
  }
  const std::string file = file_name(id);
  return file.empty() ? object : file + ":" + object;
}

// What the error stack of this thread says about the failed call: the errno a file driver
// recorded ("errno = 28, error message = 'No space left on device'"), and the innermost message.
struct Cause {
  int system_error = 0;
  std::string innermost;
};

herr_t visit_error(unsigned depth, const H5E_error2_t* error, void* data) {
  auto* cause = static_cast<Cause*>(data);
  const char* desc = error->desc != nullptr ? error->desc : "";
  if (depth == 0) cause->innermost = desc;
  if (cause->system_error == 0) {
    if (const char* at = std::strstr(desc, "errno = ")) cause->system_error = std::atoi(at + 8);
  }
  return 0;
}

Cause current_cause() {
  Cause cause;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, visit_error, &cause);
  H5Eclear2(H5E_DEFAULT);
  return cause;
}

Handle file_access(bool clear_status, unsigned read_attempts = 0) {
  Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate", "file access list"), H5Pclose);
  // Latest format: superblock v3 and the chunk indices SWMR needs.
  check(H5Pset_libver_bounds(fapl.id(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST),
        "H5Pset_libver_bounds", "file access list");
#if H5_VERSION_GE(1, 10, 7)
  // HDF5's own flock cannot tell a live writer from a killed one once the superblock says
  // "open for write"; the results file uses its own lock instead (io/files/file_lock.hpp).
  check(H5Pset_file_locking(fapl.id(), 0, 1), "H5Pset_file_locking", "file access list");
#endif
  if (clear_status) {
    // A writer killed by SIGKILL leaves the superblock marked "open for write", and HDF5 then
    // refuses to open the file at all. This registered (but undocumented in 1.10) property is
    // what `h5clear -s` sets; for read-only opens it is not persisted.
    hbool_t clear = 1;
    check(H5Pset(fapl.id(), "clear_status_flags", &clear), "H5Pset(clear_status_flags)",
          "file access list");
  }
  if (read_attempts > 0) {
    check(H5Pset_metadata_read_attempts(fapl.id(), read_attempts), "H5Pset_metadata_read_attempts",
          "file access list");
  }
  return fapl;
}

Handle dataspace_of(const Handle& dataset) {
  return {check(H5Dget_space(dataset.id()), "H5Dget_space", path_of(dataset.id())), H5Sclose};
}

}  // namespace

std::string detail::child_path(const Handle& loc, const std::string& name) {
  std::string base = path_of(loc.id());
  if (base.empty() || base.back() != '/') base += '/';
  return base + name;
}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = other.id_;
    closer_ = other.closer_;
    other.id_ = -1;
  }
  return *this;
}

bool Handle::reset() noexcept {
  bool ok = true;
  if (id_ >= 0 && closer_ != nullptr) ok = closer_(id_) >= 0;
  id_ = -1;
  return ok;
}

void Handle::close(const std::string& object) {
  const herr_t status = id_ >= 0 && closer_ != nullptr ? closer_(id_) : 0;
  id_ = -1;
  check(status, "close", object);
}

hid_t check(hid_t status, const char* call, const std::string& object) {
  if (status >= 0) return status;
  Cause cause = current_cause();
  std::string text = cause.system_error != 0 ? std::strerror(cause.system_error) : cause.innermost;
  // One line: HDF5 messages are single lines, but keep it so whatever they hold.
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::string message = std::string(call) + " failed for " + object;
  if (!text.empty()) message += ": " + text;
  throw Error(message, cause.system_error, text);
}

void silence_errors() {
  // In a thread-safe HDF5 build (Debian's) the error stack and its printing are per thread, so
  // this is done on every call of the thread that opens files, not once per process.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Handle create_file(const std::string& path) {
  silence_errors();
  const Handle fapl = file_access(false);
  // Paged file space: every piece of metadata or raw data smaller than a page lies within one
  // page, and larger ones start on a page. Together with chunks of at most a page (create_column)
  // every rewrite of a chunk is the write of one page, which a SIGKILL cannot tear: Linux
  // checks for a fatal signal between the pages of a write, never within one. A chunk of
  // several pages rewritten in place could be left half new, half old, and fail its checksum
  // together with every record it held.
  const Handle fcpl(check(H5Pcreate(H5P_FILE_CREATE), "H5Pcreate", path), H5Pclose);
  check(H5Pset_file_space_strategy(fcpl.id(), H5F_FSPACE_STRATEGY_PAGE, 0, 1),
        "H5Pset_file_space_strategy", path);
  check(H5Pset_file_space_page_size(fcpl.id(), kPageBytes), "H5Pset_file_space_page_size", path);
  return {check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.id(), fapl.id()), "H5Fcreate", path),
          H5Fclose};
}

Handle open_file(const std::string& path, Access access) {
  silence_errors();
  if (access == Access::read) {
    // SWMR read sees a consistent file even while a live writer appends to it; it fails on a
    // file whose killed writer was not in SWMR mode, which a plain read with cleared (not
    // persisted) flags then opens.
    const Handle fapl = file_access(false, kSwmrReadAttempts);
    const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl.id());
    if (id >= 0) return {id, H5Fclose};
    H5Eclear2(H5E_DEFAULT);
  }
  // A SWMR writer gets HDF5's 100 attempts by default too, and no live writer can be rewriting
  // what it reads (it holds the writer lock): one attempt, so that a damaged block is an error
  // at once instead of a resume that sleeps in HDF5's retry loop for ever.
  const Handle fapl = file_access(true, access == Access::swmr_write ? 1 : 0);
  unsigned flags = H5F_ACC_RDONLY;
  if (access == Access::read_write) flags = H5F_ACC_RDWR;
  if (access == Access::swmr_write) flags = H5F_ACC_RDWR | H5F_ACC_SWMR_WRITE;
  return {check(H5Fopen(path.c_str(), flags, fapl.id()), "H5Fopen", path), H5Fclose};
}

bool is_hdf5(const std::string& path) {
  silence_errors();
#if H5_VERSION_GE(1, 12, 0)
  return H5Fis_accessible(path.c_str(), H5P_DEFAULT) > 0;
#else
  return H5Fis_hdf5(path.c_str()) > 0;
#endif
}

void flush(const Handle& file) {
  check(H5Fflush(file.id(), H5F_SCOPE_GLOBAL), "H5Fflush", path_of(file.id()));
}

bool exists(const Handle& loc, const std::string& name) {
  return check(H5Lexists(loc.id(), name.c_str(), H5P_DEFAULT), "H5Lexists", child_path(loc, name)) >
         0;
}

Handle create_group(const Handle& loc, const std::string& name) {
  return {check(H5Gcreate2(loc.id(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                "H5Gcreate2", child_path(loc, name)),
          H5Gclose};
}

Handle open_group(const Handle& loc, const std::string& name) {
  return {check(H5Gopen2(loc.id(), name.c_str(), H5P_DEFAULT), "H5Gopen2", child_path(loc, name)),
          H5Gclose};
}

void delete_link(const Handle& loc, const std::string& name) {
  check(H5Ldelete(loc.id(), name.c_str(), H5P_DEFAULT), "H5Ldelete", child_path(loc, name));
}

template <>
hid_t native_type<double>() {
  return H5T_NATIVE_DOUBLE;
}
template <>
hid_t native_type<std::int64_t>() {
  return H5T_NATIVE_INT64;
}
template <>
hid_t native_type<std::uint32_t>() {
  return H5T_NATIVE_UINT32;
}
template <>
hid_t native_type<std::uint8_t>() {
  return H5T_NATIVE_UINT8;
}

std::uint64_t page_chunk_rows(std::size_t element_bytes) {
  return std::max<std::uint64_t>(
      1, (kPageBytes - kChecksumBytes) / std::max<std::size_t>(element_bytes, 1));
}

Handle create_column(const Handle& loc, const std::string& name, hid_t type) {
  const std::string where = child_path(loc, name);
  const hsize_t initial = 0;
  const hsize_t maximum = H5S_UNLIMITED;
  const hsize_t chunk = page_chunk_rows(H5Tget_size(type));
  const Handle space(check(H5Screate_simple(1, &initial, &maximum), "H5Screate_simple", where),
                     H5Sclose);
  const Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate", where), H5Pclose);
  check(H5Pset_chunk(dcpl.id(), 1, &chunk), "H5Pset_chunk", where);
  // A checksum per chunk, verified by HDF5 on every read (C++ and h5py alike): HDF5 checks its
  // metadata, but without this filter a flipped bit in the values themselves reads as a number.
  check(H5Pset_fletcher32(dcpl.id()), "H5Pset_fletcher32", where);
  return {check(H5Dcreate2(loc.id(), name.c_str(), type, space.id(), H5P_DEFAULT, dcpl.id(),
                           H5P_DEFAULT),
                "H5Dcreate2", where),
          H5Dclose};
}

namespace {
Handle string_type(std::size_t length, const std::string& where) {
  Handle type(check(H5Tcopy(H5T_C_S1), "H5Tcopy", where), H5Tclose);
  check(H5Tset_size(type.id(), length), "H5Tset_size", where);
  check(H5Tset_strpad(type.id(), H5T_STR_NULLPAD), "H5Tset_strpad", where);
  return type;
}
}  // namespace

Handle create_string_column(const Handle& loc, const std::string& name, std::size_t length) {
  const Handle type = string_type(length, child_path(loc, name));
  return create_column(loc, name, type.id());
}

Handle open_dataset(const Handle& loc, const std::string& name) {
  return {check(H5Dopen2(loc.id(), name.c_str(), H5P_DEFAULT), "H5Dopen2", child_path(loc, name)),
          H5Dclose};
}

std::uint64_t length(const Handle& dataset) {
  const Handle space = dataspace_of(dataset);
  hsize_t rows = 0;
  check(H5Sget_simple_extent_dims(space.id(), &rows, nullptr), "H5Sget_simple_extent_dims",
        path_of(dataset.id()));
  return rows;
}

void set_length(const Handle& dataset, std::uint64_t rows) {
  const hsize_t size = rows;
  check(H5Dset_extent(dataset.id(), &size), "H5Dset_extent", path_of(dataset.id()));
}

namespace {

// The file rows [offset, offset + count) of a 1-D dataset and a memory space of `count` elements.
struct RowSelection {
  Handle file_space;
  Handle memory_space;
};

RowSelection select_rows(const Handle& dataset, std::uint64_t offset, std::uint64_t count,
                         const std::string& where) {
  Handle file_space = dataspace_of(dataset);
  const hsize_t start = offset;
  const hsize_t size = count;
  check(H5Sselect_hyperslab(file_space.id(), H5S_SELECT_SET, &start, nullptr, &size, nullptr),
        "H5Sselect_hyperslab", where);
  Handle memory_space(check(H5Screate_simple(1, &size, nullptr), "H5Screate_simple", where),
                      H5Sclose);
  return {std::move(file_space), std::move(memory_space)};
}

// Writes `count` elements of `type` from `data` at rows [offset, offset + count).
void write_raw(const Handle& dataset, std::uint64_t offset, std::uint64_t count, hid_t type,
               const void* data) {
  if (count == 0) return;
  const std::string where = path_of(dataset.id());
  if (length(dataset) < offset + count) set_length(dataset, offset + count);
  const RowSelection rows = select_rows(dataset, offset, count, where);
  check(
      H5Dwrite(dataset.id(), type, rows.memory_space.id(), rows.file_space.id(), H5P_DEFAULT, data),
      "H5Dwrite", where);
}

// HDF5's message when a chunk's Fletcher-32 checksum fails (H5Zfletcher32.c).
constexpr const char* kDataChecksumError = "Fletcher32 checksum";

// Reads rows [offset, offset + count); on failure returns false with the cause taken before
// the selection's handles close (every later HDF5 call clears the error stack).
bool try_read(const Handle& dataset, std::uint64_t offset, std::uint64_t count, hid_t type,
              void* data, const std::string& where, Cause& cause) {
  const RowSelection rows = select_rows(dataset, offset, count, where);
  if (H5Dread(dataset.id(), type, rows.memory_space.id(), rows.file_space.id(), H5P_DEFAULT,
              data) >= 0) {
    return true;
  }
  cause = current_cause();
  return false;
}

std::uint64_t chunk_rows_of(const Handle& dataset) {
  const Handle dcpl(
      check(H5Dget_create_plist(dataset.id()), "H5Dget_create_plist", path_of(dataset.id())),
      H5Pclose);
  hsize_t chunk = 0;
  if (H5Pget_layout(dcpl.id()) == H5D_CHUNKED && H5Pget_chunk(dcpl.id(), 1, &chunk) == 1 &&
      chunk > 0) {
    return chunk;
  }
  return 0;
}

// The rows of the first chunk in [offset, offset + count) that cannot be read, as "rows a-b"
// ("" when every chunk reads now): a checksum names a chunk, and a chunk holds a range of rows.
std::string unreadable_rows(const Handle& dataset, std::uint64_t offset, std::uint64_t count,
                            hid_t type, const std::string& where) {
  const std::uint64_t chunk = chunk_rows_of(dataset);
  if (chunk == 0) return "";
  const std::size_t size = H5Tget_size(type);
  std::vector<unsigned char> scratch(chunk * size);
  for (std::uint64_t first = offset - offset % chunk; first < offset + count; first += chunk) {
    const std::uint64_t begin = std::max(first, offset);
    const std::uint64_t end = std::min(first + chunk, offset + count);
    Cause ignored;
    if (!try_read(dataset, begin, end - begin, type, scratch.data(), where, ignored)) {
      return "rows " + std::to_string(begin) + "-" + std::to_string(end - 1);
    }
  }
  return "";
}

void read_raw(const Handle& dataset, std::uint64_t offset, std::uint64_t count, hid_t type,
              void* data) {
  if (count == 0) return;
  const std::string where = path_of(dataset.id());
  if (offset + count > length(dataset)) {
    throw std::runtime_error("read past the end of " + where);
  }
  Cause cause;
  if (try_read(dataset, offset, count, type, data, where, cause)) return;
  // A reader of a live file may read a chunk while its writer rewrites it in place, and see a
  // torn chunk whose checksum fails: a second attempt reads it whole (damage fails every time).
  // Only then are the chunks read one by one to name the rows: after a metadata failure each
  // further read would wait through HDF5's metadata retries again.
  const bool data_checksum = cause.innermost.find(kDataChecksumError) != std::string::npos;
  if (data_checksum && try_read(dataset, offset, count, type, data, where, cause)) return;
  const std::string rows =
      data_checksum ? unreadable_rows(dataset, offset, count, type, where) : "";
  std::string text = cause.system_error != 0 ? std::strerror(cause.system_error) : cause.innermost;
  std::replace(text.begin(), text.end(), '\n', ' ');
  const std::string message = "H5Dread failed for " + where + (rows.empty() ? "" : " " + rows) +
                              (text.empty() ? "" : ": " + text);
  throw Error(message, cause.system_error, text);
}

}  // namespace

bool is_data_checksum(const Error& error) {
  return error.cause().find(kDataChecksumError) != std::string::npos;
}

bool has_checksum(const Handle& dataset) {
  const std::string where = path_of(dataset.id());
  const Handle dcpl(check(H5Dget_create_plist(dataset.id()), "H5Dget_create_plist", where),
                    H5Pclose);
  unsigned flags = 0;
  std::size_t elements = 0;
  unsigned config = 0;
  // Fails (an error on the stack, cleared) when the pipeline has no such filter.
  const bool found = H5Pget_filter_by_id2(dcpl.id(), H5Z_FILTER_FLETCHER32, &flags, &elements,
                                          nullptr, 0, nullptr, &config) >= 0;
  if (!found) H5Eclear2(H5E_DEFAULT);
  return found;
}

void read_every_row(const Handle& dataset) {
  const std::string where = path_of(dataset.id());
  const Handle type(check(H5Dget_type(dataset.id()), "H5Dget_type", where), H5Tclose);
  const std::uint64_t rows = length(dataset);
  // Blocks of whole chunks, so that a file of any size is verified in bounded memory.
  const std::uint64_t block = std::max<std::uint64_t>(chunk_rows_of(dataset), 1) * 64;
  std::vector<unsigned char> buffer(std::min(rows, block) * H5Tget_size(type.id()));
  for (std::uint64_t first = 0; first < rows; first += block) {
    read_raw(dataset, first, std::min(block, rows - first), type.id(), buffer.data());
  }
}

template <typename T>
void write_at(const Handle& dataset, std::uint64_t offset, const std::vector<T>& values) {
  write_raw(dataset, offset, values.size(), native_type<T>(), values.data());
}

template <typename T>
std::vector<T> read_range(const Handle& dataset, std::uint64_t offset, std::uint64_t count) {
  std::vector<T> values(count);
  read_raw(dataset, offset, count, native_type<T>(), values.data());
  return values;
}

template <typename T>
std::vector<T> read_all(const Handle& dataset) {
  return read_range<T>(dataset, 0, length(dataset));
}

std::vector<unsigned char> read_stored_bytes(const Handle& dataset, std::size_t& element_bytes) {
  const Handle type(check(H5Dget_type(dataset.id()), "H5Dget_type", path_of(dataset.id())),
                    H5Tclose);
  element_bytes = H5Tget_size(type.id());
  const std::uint64_t rows = length(dataset);
  std::vector<unsigned char> bytes(rows * element_bytes);
  // The file's own type as the memory type: HDF5 converts nothing.
  read_raw(dataset, 0, rows, type.id(), bytes.data());
  return bytes;
}

#define WORDSENS_H5_INSTANTIATE(T)                                                    \
  template void write_at<T>(const Handle&, std::uint64_t, const std::vector<T>&);     \
  template std::vector<T> read_range<T>(const Handle&, std::uint64_t, std::uint64_t); \
  template std::vector<T> read_all<T>(const Handle&);
WORDSENS_H5_INSTANTIATE(double)
WORDSENS_H5_INSTANTIATE(std::int64_t)
WORDSENS_H5_INSTANTIATE(std::uint32_t)
WORDSENS_H5_INSTANTIATE(std::uint8_t)
#undef WORDSENS_H5_INSTANTIATE

namespace {
std::size_t string_size(const Handle& dataset) {
  const Handle type(check(H5Dget_type(dataset.id()), "H5Dget_type", path_of(dataset.id())),
                    H5Tclose);
  if (H5Tget_class(type.id()) != H5T_STRING || H5Tis_variable_str(type.id()) > 0) {
    throw std::runtime_error("not a fixed-length string column: " + path_of(dataset.id()));
  }
  return H5Tget_size(type.id());
}
}  // namespace

void append_strings(const Handle& dataset, const std::vector<std::string>& values) {
  const std::string where = path_of(dataset.id());
  const std::size_t size = string_size(dataset);
  std::vector<char> buffer(values.size() * size, '\0');
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].size() > size) {
      throw std::invalid_argument("string '" + values[i] + "' longer than " + std::to_string(size) +
                                  " bytes for " + where);
    }
    std::memcpy(buffer.data() + i * size, values[i].data(), values[i].size());
  }
  const Handle type = string_type(size, where);
  write_raw(dataset, length(dataset), values.size(), type.id(), buffer.data());
}

std::vector<std::string> read_strings(const Handle& dataset) {
  const std::string where = path_of(dataset.id());
  const std::size_t size = string_size(dataset);
  const std::uint64_t rows = length(dataset);
  std::vector<char> buffer(rows * size, '\0');
  const Handle type = string_type(size, where);
  read_raw(dataset, 0, rows, type.id(), buffer.data());
  std::vector<std::string> values(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const char* begin = buffer.data() + i * size;
    values[i].assign(begin, std::find(begin, begin + size, '\0'));
  }
  return values;
}

std::vector<std::uint64_t> shape(const Handle& dataset) {
  const std::string where = path_of(dataset.id());
  const Handle space = dataspace_of(dataset);
  const int rank = H5Sget_simple_extent_ndims(space.id());
  check(rank, "H5Sget_simple_extent_ndims", where);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  check(H5Sget_simple_extent_dims(space.id(), dims.data(), nullptr), "H5Sget_simple_extent_dims",
        where);
  return {dims.begin(), dims.end()};
}

TypeClass type_class(const Handle& dataset) {
  const Handle type(check(H5Dget_type(dataset.id()), "H5Dget_type", path_of(dataset.id())),
                    H5Tclose);
  switch (H5Tget_class(type.id())) {
    case H5T_INTEGER:
      return TypeClass::integer;
    case H5T_FLOAT:
      return TypeClass::floating;
    case H5T_STRING:
      return TypeClass::string;
    default:
      return TypeClass::other;
  }
}

void read_box(const Handle& dataset, const std::vector<std::uint64_t>& start,
              const std::vector<std::uint64_t>& count, double* out) {
  const std::string where = path_of(dataset.id());
  const auto dims = shape(dataset);
  if (start.size() != dims.size() || count.size() != dims.size()) {
    throw std::invalid_argument("read_box: rank mismatch for " + where);
  }
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (start[i] + count[i] > dims[i]) throw std::out_of_range("read_box: outside " + where);
  }
  const std::vector<hsize_t> first(start.begin(), start.end());
  const std::vector<hsize_t> size(count.begin(), count.end());
  const Handle file_space = dataspace_of(dataset);
  check(H5Sselect_hyperslab(file_space.id(), H5S_SELECT_SET, first.data(), nullptr, size.data(),
                            nullptr),
        "H5Sselect_hyperslab", where);
  const Handle memory_space(
      check(H5Screate_simple(static_cast<int>(size.size()), size.data(), nullptr),
            "H5Screate_simple", where),
      H5Sclose);
  check(H5Dread(dataset.id(), H5T_NATIVE_DOUBLE, memory_space.id(), file_space.id(), H5P_DEFAULT,
                out),
        "H5Dread", where);
}

}  // namespace wordsens::io::h5
