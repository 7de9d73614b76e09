#include "io/inputs/embeddings_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "io/files/file_kind.hpp"
#include "io/h5/h5.hpp"

namespace wordsens::io {

namespace {

constexpr const char* kTokens = "tokens";
constexpr const char* kLengths = "lengths";
constexpr const char* kLabels = "labels";
constexpr const char* kTextWindows = "text_windows";

std::string str(std::uint64_t value) { return std::to_string(value); }

// A 64-bit hash of a sequence of 64-bit words: per word h = rotl((h xor w) · p, 27) (FNV-1a's
// basis and prime p), then splitmix64's finaliser. Every step is a bijection of h, so changing
// any one word always changes the hash; the rotation carries high bits into low ones, which the
// multiplication alone never does. A fingerprint against accidents, not against forgery.
class WordHash {
 public:
  void add(std::uint64_t word) {
    hash_ = (hash_ ^ word) * 1099511628211ULL;
    hash_ = (hash_ << 27) | (hash_ >> 37);
  }
  void add(double value) {
    std::uint64_t word = 0;
    std::memcpy(&word, &value, sizeof word);
    add(word);
  }
  [[nodiscard]] std::string hex() const {
    std::uint64_t z = hash_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(z));
    return text;
  }

 private:
  std::uint64_t hash_ = 14695981039346656037ULL;
};

}  // namespace

struct EmbeddingsFile::Impl {
  std::string path;
  h5::Handle file;
  h5::Handle tokens;
  Index sequences = 0, max_length = 0, width = 0;
  std::vector<Index> lengths;
  std::vector<double> labels;
  bool whole_texts = false;

  // An unusable input file is bad input (exit 2), whatever found it: a check here or HDF5.
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("embeddings file " + path + ": " + what);
  }

  // Opens dataset `name`, checking that it exists, has `rank` dimensions and element class
  // `type` (HDF5 converts integer and float widths on read, so any width is accepted).
  h5::Handle dataset(const std::string& name, std::size_t rank, h5::TypeClass type,
                     const char* type_name) const {
    if (!h5::exists(file, name)) {
      fail("no dataset /" + name + " (expected /tokens, /lengths and /labels)");
    }
    h5::Handle set = h5::open_dataset(file, name);
    const auto dims = h5::shape(set);
    if (dims.size() != rank) {
      fail("/" + name + " has rank " + str(dims.size()) + ", expected " + str(rank));
    }
    if (h5::type_class(set) != type) fail("/" + name + " must hold " + type_name);
    return set;
  }

  void read_layout();
};

EmbeddingsFile EmbeddingsFile::open(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  // Before anything opens it: a FIFO would block the opener, a device never end.
  if (const std::string problem = regular_file_problem(path); !problem.empty()) impl->fail(problem);
  if (!h5::is_hdf5(path)) impl->fail("is not an HDF5 file");
  try {
    impl->file = h5::open_file(path, h5::Access::read);
  } catch (const h5::Error& e) {
    impl->fail(std::string("cannot be opened (") + e.what() + ")");
  }

  try {
    impl->read_layout();
  } catch (const h5::Error& e) {
    impl->fail(e.what());
  }
  return EmbeddingsFile(std::move(impl));
}

// /tokens, /lengths and /labels: their shapes and types, and the lengths and labels checked.
void EmbeddingsFile::Impl::read_layout() {
  tokens = dataset(kTokens, 3, h5::TypeClass::floating, "floating-point numbers");
  const auto dims = h5::shape(tokens);
  sequences = static_cast<Index>(dims[0]);
  max_length = static_cast<Index>(dims[1]);
  width = static_cast<Index>(dims[2]);
  if (dims[0] == 0 || dims[1] == 0 || dims[2] == 0) {
    fail("/tokens is empty (" + str(dims[0]) + " x " + str(dims[1]) + " x " + str(dims[2]) + ")");
  }

  const h5::Handle length_set = dataset(kLengths, 1, h5::TypeClass::integer, "integers");
  const h5::Handle label_set = dataset(kLabels, 1, h5::TypeClass::integer, "integers");
  for (const auto& [set, name] :
       {std::pair{&length_set, kLengths}, std::pair{&label_set, kLabels}}) {
    const auto rows = h5::shape(*set)[0];
    if (rows != dims[0]) {
      fail("/" + std::string(name) + " has " + str(rows) + " entries but /tokens has " +
           str(dims[0]) + " sequences");
    }
  }

  const auto raw_lengths = h5::read_all<std::int64_t>(length_set);
  const auto raw_labels = h5::read_all<std::int64_t>(label_set);
  for (std::size_t s = 0; s < raw_lengths.size(); ++s) {
    if (raw_lengths[s] < 0 || raw_lengths[s] > max_length) {
      fail("/lengths[" + str(s) + "] = " + std::to_string(raw_lengths[s]) + " is not in [0, " +
           str(dims[1]) + "]");
    }
    if (raw_labels[s] != 1 && raw_labels[s] != -1) {
      fail("/labels[" + str(s) + "] = " + std::to_string(raw_labels[s]) + " is not +1 or -1");
    }
    lengths.push_back(static_cast<Index>(raw_lengths[s]));
    labels.push_back(static_cast<double>(raw_labels[s]));
  }

  // How texts are cut from the sequences (EmbeddingsSource::whole_texts): a file that says
  // something else than the two known values must not be read as prefixes by default.
  if (h5::has_attribute(file, kTextWindows)) {
    std::string windows;
    try {
      windows = h5::read_string_attribute(file, kTextWindows);
    } catch (const std::exception&) {
      fail("root attribute text_windows is not a string (expected \"prefix\" or \"whole\")");
    }
    if (windows == "whole") {
      whole_texts = true;
    } else if (windows != "prefix") {
      fail("root attribute text_windows = \"" + windows + "\" is not \"prefix\" or \"whole\"");
    }
  }
}

EmbeddingsFile::EmbeddingsFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EmbeddingsFile::EmbeddingsFile(EmbeddingsFile&&) noexcept = default;
EmbeddingsFile& EmbeddingsFile::operator=(EmbeddingsFile&&) noexcept = default;
EmbeddingsFile::~EmbeddingsFile() = default;

Index EmbeddingsFile::sequences() const { return impl_->sequences; }
Index EmbeddingsFile::max_length() const { return impl_->max_length; }
Index EmbeddingsFile::width() const { return impl_->width; }
std::string EmbeddingsFile::name() const { return impl_->path; }
bool EmbeddingsFile::whole_texts() const { return impl_->whole_texts; }

Index EmbeddingsFile::length(Index sequence) const {
  return impl_->lengths.at(static_cast<std::size_t>(sequence));
}

double EmbeddingsFile::label(Index sequence) const {
  return impl_->labels.at(static_cast<std::size_t>(sequence));
}

Matrix EmbeddingsFile::raw_tokens(Index sequence, Index n, Index d) const {
  if (sequence < 0 || sequence >= impl_->sequences || n < 0 || n > impl_->max_length || d < 0 ||
      d > impl_->width) {
    impl_->fail("request (sequence " + std::to_string(sequence) + ", n = " + std::to_string(n) +
                ", d = " + std::to_string(d) + ") is outside /tokens");
  }
  Matrix X(n, d);  // row-major n × d: exactly the memory layout of the (1, n, d) box
  if (n > 0 && d > 0) {
    try {
      h5::read_box(impl_->tokens, {static_cast<std::uint64_t>(sequence), 0, 0},
                   {1, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(d)}, X.data());
    } catch (const h5::Error& e) {
      impl_->fail(e.what());
    }
  }
  return X;
}

EmbeddingsTable EmbeddingsFile::load(const std::vector<Index>& stored, Index n, Index d) const {
  const auto window = static_cast<std::size_t>(n * d);
  std::vector<float> tokens;
  tokens.reserve(stored.size() * window);
  for (const Index s : stored) {
    const Matrix X = raw_tokens(s, n, d);  // checks the request
    // The layout stores float32, so this is exact (a float64 file is rounded to float32).
    for (Index i = 0; i < X.size(); ++i) tokens.push_back(static_cast<float>(X.data()[i]));
  }
  return {
      impl_->path, impl_->max_length, impl_->width,      impl_->lengths, impl_->labels, stored, n,
      d,           std::move(tokens), impl_->whole_texts};
}

Index EmbeddingsFile::count_usable(Index n) const {
  return static_cast<Index>(usable_sequences(*this, n).size());
}

std::string EmbeddingsFile::fingerprint() const {
  const Impl& m = *impl_;
  struct stat info {};
  if (::stat(m.path.c_str(), &info) != 0)
    m.fail("cannot be read (" + std::string(std::strerror(errno)) + ")");
  std::tm utc{};
  gmtime_r(&info.st_mtime, &utc);
  char mtime[32];
  std::strftime(mtime, sizeof mtime, "%Y-%m-%dT%H:%M:%SZ", &utc);

  WordHash hash;
  const auto sequences = static_cast<std::uint64_t>(m.sequences);
  const auto length = static_cast<std::uint64_t>(m.max_length);
  const auto width = static_cast<std::uint64_t>(m.width);
  for (const std::uint64_t dim : {sequences, length, width}) hash.add(dim);
  // Blocks of whole sequences, about 8 MB of doubles each.
  const std::uint64_t per_block = std::max<std::uint64_t>(1, (1u << 20) / (length * width));
  std::vector<double> block;
  for (std::uint64_t first = 0; first < sequences; first += per_block) {
    const std::uint64_t count = std::min(per_block, sequences - first);
    block.resize(count * length * width);
    try {
      h5::read_box(m.tokens, {first, 0, 0}, {count, length, width}, block.data());
    } catch (const h5::Error& e) {
      m.fail(e.what());
    }
    for (const double value : block) hash.add(value);
  }
  for (const Index value : m.lengths) hash.add(static_cast<std::uint64_t>(value));
  for (const double value : m.labels) hash.add(value);
  return "size=" + std::to_string(static_cast<long long>(info.st_size)) + " mtime=" + mtime +
         " content=mulrot64:" + hash.hex() + (m.whole_texts ? " text_windows=whole" : "");
}

std::string EmbeddingsFile::attribute(const std::string& key) const {
  if (!h5::has_attribute(impl_->file, key)) return "";
  try {
    return h5::read_string_attribute(impl_->file, key);
  } catch (const std::exception&) {
  }
  try {
    return std::to_string(h5::read_int_attribute(impl_->file, key));
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace wordsens::io
