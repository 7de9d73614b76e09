#include "io/inputs/safetensors.hpp"

#include <sys/stat.h>

#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/errors.hpp"

namespace wordsens::io {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors stores little-endian values");

using Json = nlohmann::json;

// A header longer than this is not a model's (all-MiniLM-L6-v2's is 11 kB).
constexpr std::uint64_t kMaxHeaderBytes = std::uint64_t{100} << 20;

std::string shape_text(const std::vector<Index>& shape) {
  std::string out = "(";
  for (std::size_t k = 0; k < shape.size(); ++k) {
    out += (k > 0 ? ", " : "") + std::to_string(shape[k]);
  }
  return out + ")";
}

}  // namespace

struct SafetensorsFile::Impl {
  std::string path;
  std::ifstream in;
  Json header;
  std::uint64_t data_start = 0, data_bytes = 0;

  [[noreturn]] void fail(const std::string& what) const { throw InputError(path + ": " + what); }
};

SafetensorsFile::SafetensorsFile(std::string path) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = std::move(path);
  struct stat info {};
  if (::stat(m.path.c_str(), &info) != 0) {
    m.fail("cannot be read (" + std::string(std::strerror(errno)) + ")");
  }
  const auto size = static_cast<std::uint64_t>(info.st_size);
  m.in.open(m.path, std::ios::binary);
  if (!m.in) m.fail("cannot be read (" + std::string(std::strerror(errno)) + ")");
  std::array<char, 8> length_bytes{};
  if (size < 8 || !m.in.read(length_bytes.data(), 8)) {
    m.fail("is not a safetensors file (shorter than its 8-byte header length)");
  }
  std::uint64_t length = 0;
  std::memcpy(&length, length_bytes.data(), 8);
  if (length > kMaxHeaderBytes || length > size - 8) {
    m.fail("is not a safetensors file (header length " + std::to_string(length) +
           " for a file of " + std::to_string(size) + " bytes)");
  }
  std::string text(length, '\0');
  if (!m.in.read(text.data(), static_cast<std::streamsize>(length))) {
    m.fail("cannot be read (its header is cut short)");
  }
  try {
    m.header = Json::parse(text);
  } catch (const Json::exception& e) {
    m.fail(std::string("is not a safetensors file (its header is not JSON: ") + e.what() + ")");
  }
  if (!m.header.is_object()) m.fail("is not a safetensors file (its header is not an object)");
  m.data_start = 8 + length;
  m.data_bytes = size - m.data_start;
}

SafetensorsFile::SafetensorsFile(SafetensorsFile&&) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&&) noexcept = default;
SafetensorsFile::~SafetensorsFile() = default;

const std::string& SafetensorsFile::path() const { return impl_->path; }

bool SafetensorsFile::has(const std::string& name) const {
  return name != "__metadata__" && impl_->header.contains(name);
}

std::vector<double> SafetensorsFile::read(const std::string& name,
                                          const std::vector<Index>& shape) {
  Impl& m = *impl_;
  const auto entry = m.header.find(name);
  if (!has(name) || !entry->is_object()) m.fail("has no tensor " + name);
  const auto field = [&](const char* key) -> const Json& {
    const auto found = entry->find(key);
    if (found == entry->end()) m.fail("tensor " + name + " has no " + key);
    return *found;
  };
  const Json& dims = field("shape");
  std::vector<Index> stored;
  bool well_formed = dims.is_array();
  for (const Json& v : dims) {
    well_formed = well_formed && v.is_number_unsigned();
    if (well_formed) stored.push_back(static_cast<Index>(v.get<std::uint64_t>()));
  }
  if (!well_formed) m.fail("tensor " + name + " has a malformed shape");
  if (stored != shape) {
    m.fail("tensor " + name + " has shape " + shape_text(stored) + ", expected " +
           shape_text(shape));
  }
  const Json& dtype = field("dtype");
  const std::string type = dtype.is_string() ? dtype.get<std::string>() : "?";
  const std::uint64_t width = type == "F32" ? 4 : type == "F64" ? 8 : 0;
  if (width == 0) m.fail("tensor " + name + " is " + type + ", expected F32 or F64");
  const Json& offsets = field("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    m.fail("tensor " + name + " has malformed data_offsets");
  }
  const auto begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
  std::uint64_t count = 1;
  for (const Index s : shape) count *= static_cast<std::uint64_t>(s);
  if (end < begin || end > m.data_bytes || end - begin != count * width) {
    m.fail("tensor " + name + " has data_offsets [" + std::to_string(begin) + ", " +
           std::to_string(end) + "), which do not hold its " + std::to_string(count) + " " + type +
           " values inside the file's " + std::to_string(m.data_bytes) + " data bytes");
  }
  std::vector<char> bytes(end - begin);
  m.in.clear();
  m.in.seekg(static_cast<std::streamoff>(m.data_start + begin));
  if (!m.in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    m.fail("cannot be read (tensor " + name + ")");
  }
  std::vector<double> values(count);
  for (std::uint64_t k = 0; k < count; ++k) {
    if (width == 4) {
      float f = 0;
      std::memcpy(&f, bytes.data() + k * 4, 4);
      values[k] = static_cast<double>(f);
    } else {
      std::memcpy(&values[k], bytes.data() + k * 8, 8);
    }
    if (!std::isfinite(values[k])) m.fail("tensor " + name + " holds a NaN or infinite value");
  }
  return values;
}

Matrix SafetensorsFile::matrix(const std::string& name, Index rows, Index cols) {
  const std::vector<double> values = read(name, {rows, cols});
  return Eigen::Map<const Matrix>(values.data(), rows, cols);
}

Matrix SafetensorsFile::transposed(const std::string& name, Index rows, Index cols) {
  return matrix(name, rows, cols).transpose();
}

RowVector SafetensorsFile::row(const std::string& name, Index size) {
  const std::vector<double> values = read(name, {size});
  return Eigen::Map<const RowVector>(values.data(), size);
}

}  // namespace wordsens::io
