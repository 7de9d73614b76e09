#include "study/task_output.hpp"

#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "study/record_fields.hpp"

namespace wordsens {
namespace {

constexpr std::uint32_t kMagic = 0x57535432;  // "WST2": the record fields of format 1.2

class Writer {
 public:
  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::uint8_t*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  template <typename T>
  void put_array(const T* data, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<std::uint64_t>(count);
    const auto* p = reinterpret_cast<const std::uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + count * sizeof(T));
  }
  void put_string(const std::string& s) {
    put<std::uint64_t>(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  std::vector<std::uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<std::uint8_t> bytes_;
};

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  template <typename T>
  T get() {
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }
  template <typename T>
  std::vector<T> get_array() {
    const auto count = get<std::uint64_t>();
    if (count > bytes_.size() / sizeof(T)) fail();
    std::vector<T> values(count);
    if (count > 0) std::memcpy(values.data(), take(count * sizeof(T)), count * sizeof(T));
    return values;
  }
  std::string get_string() {
    const auto size = get<std::uint64_t>();
    if (size > bytes_.size()) fail();
    const auto* p = take(size);
    return std::string(reinterpret_cast<const char*>(p), size);
  }
  bool at_end() const { return offset_ == bytes_.size(); }

 private:
  [[noreturn]] static void fail() {
    throw std::runtime_error("corrupt task output message (truncated or malformed)");
  }
  const std::uint8_t* take(std::size_t size) {
    if (size > bytes_.size() - offset_) fail();
    const auto* p = bytes_.data() + offset_;
    offset_ += size;
    return p;
  }
  std::span<const std::uint8_t> bytes_;
  std::size_t offset_ = 0;
};

// A record travels as its schema's fields in table order (study/record_fields.cpp).
template <typename Record>
void put_record(Writer& w, const RecordSchema<Record>& schema, const Record& record) {
  for (const auto& field : schema.scalars) {
    std::visit([&](auto member) { w.put(record.*member); }, field.member);
  }
  for (const auto& field : schema.ragged) {
    std::visit(
        [&](auto member) {
          const auto& values = record.*member;
          w.put_array(values.data(), values.size());
        },
        field.member);
  }
}

template <typename Record>
Record get_record(Reader& r, const RecordSchema<Record>& schema) {
  Record record;
  for (const auto& field : schema.scalars) {
    std::visit(
        [&](auto member) {
          using T = std::remove_reference_t<decltype(record.*member)>;
          record.*member = r.get<T>();
        },
        field.member);
  }
  for (const auto& field : schema.ragged) {
    std::visit(
        [&](auto member) {
          using T = typename std::remove_reference_t<decltype(record.*member)>::value_type;
          record.*member = r.get_array<T>();
        },
        field.member);
  }
  return record;
}

}  // namespace

std::vector<std::uint8_t> encode(const TaskOutput& output) {
  Writer w;
  w.put(kMagic);
  w.put(output.task_id);
  w.put(static_cast<std::uint8_t>(output.experiment));
  put_record(w, ws_schema(), output.ws);
  w.put<std::uint64_t>(output.gen.size());
  for (const GenRecord& g : output.gen) put_record(w, gen_schema(), g);
  w.put<std::uint64_t>(output.arrays.size());
  for (const TaskArray& a : output.arrays) {
    w.put_string(a.name);
    w.put(a.position);
    w.put<std::int64_t>(a.values.rows());
    w.put<std::int64_t>(a.values.cols());
    w.put_array(a.values.data(), static_cast<std::size_t>(a.values.size()));
  }
  return w.take();
}

TaskOutput decode_task_output(std::span<const std::uint8_t> bytes) {
  Reader r(bytes);
  if (r.get<std::uint32_t>() != kMagic) {
    throw std::runtime_error("corrupt task output message (bad magic)");
  }
  TaskOutput out;
  out.task_id = r.get<std::uint32_t>();
  const auto experiment = r.get<std::uint8_t>();
  if (experiment > 1) throw std::runtime_error("corrupt task output message (experiment)");
  out.experiment = static_cast<Experiment>(experiment);
  out.ws = get_record(r, ws_schema());
  const auto gen_count = r.get<std::uint64_t>();
  if (gen_count > bytes.size()) throw std::runtime_error("corrupt task output message (gen)");
  for (std::uint64_t i = 0; i < gen_count; ++i) out.gen.push_back(get_record(r, gen_schema()));
  const auto array_count = r.get<std::uint64_t>();
  if (array_count > bytes.size()) throw std::runtime_error("corrupt task output message (arrays)");
  for (std::uint64_t i = 0; i < array_count; ++i) {
    TaskArray a;
    a.name = r.get_string();
    a.position = r.get<std::int64_t>();
    const auto rows = r.get<std::int64_t>();
    const auto cols = r.get<std::int64_t>();
    const auto values = r.get_array<double>();
    if (rows < 0 || cols < 0 ||
        static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols) != values.size()) {
      throw std::runtime_error("corrupt task output message (array shape)");
    }
    a.values = Eigen::Map<const Matrix>(values.data(), rows, cols);
    out.arrays.push_back(std::move(a));
  }
  if (!r.at_end()) throw std::runtime_error("corrupt task output message (trailing bytes)");
  return out;
}

}  // namespace wordsens
