#include "grid/task_output.hpp"

#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace wordsens {
namespace {

constexpr std::uint32_t kMagic = 0x57535431;  // "WST1"

class Writer {
 public:
  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::uint8_t*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void put_doubles(const double* data, std::size_t count) {
    put<std::uint64_t>(count);
    const auto* p = reinterpret_cast<const std::uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + count * sizeof(double));
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
  std::vector<double> get_doubles() {
    const auto count = get<std::uint64_t>();
    if (count > bytes_.size() / sizeof(double)) fail();
    std::vector<double> values(count);
    if (count > 0) std::memcpy(values.data(), take(count * sizeof(double)), count * sizeof(double));
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

}  // namespace

std::vector<std::uint8_t> encode(const TaskOutput& output) {
  Writer w;
  w.put(kMagic);
  w.put(output.task_id);
  w.put(static_cast<std::uint8_t>(output.experiment));
  const WsRecord& r = output.ws;
  w.put(r.task_id);
  w.put(r.S);
  w.put(r.S_upper);
  w.put(r.argmax_position);
  w.put(r.phi_norm);
  w.put(r.evaluations);
  w.put(r.seconds);
  w.put_doubles(r.witness.data(), r.witness.size());
  w.put<std::uint64_t>(output.gen.size());
  for (const GenRecord& g : output.gen) {
    w.put(g.task_id);
    w.put(g.training);
    w.put(g.objective);
    for (const double v : {g.t0, g.t1, g.D0, g.D1, g.E, g.cond_K}) w.put(v);
    w.put(g.position);
    w.put(g.evaluations);
    w.put(g.seconds);
    w.put_doubles(g.witness.data(), g.witness.size());
  }
  w.put<std::uint64_t>(output.arrays.size());
  for (const TaskArray& a : output.arrays) {
    w.put_string(a.name);
    w.put(a.position);
    w.put<std::int64_t>(a.values.rows());
    w.put<std::int64_t>(a.values.cols());
    w.put_doubles(a.values.data(), static_cast<std::size_t>(a.values.size()));
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
  WsRecord& ws = out.ws;
  ws.task_id = r.get<std::uint32_t>();
  ws.S = r.get<double>();
  ws.S_upper = r.get<double>();
  ws.argmax_position = r.get<std::int64_t>();
  ws.phi_norm = r.get<double>();
  ws.evaluations = r.get<std::int64_t>();
  ws.seconds = r.get<double>();
  ws.witness = r.get_doubles();
  const auto gen_count = r.get<std::uint64_t>();
  if (gen_count > bytes.size()) throw std::runtime_error("corrupt task output message (gen)");
  for (std::uint64_t i = 0; i < gen_count; ++i) {
    GenRecord g;
    g.task_id = r.get<std::uint32_t>();
    g.training = r.get<std::uint8_t>();
    g.objective = r.get<std::uint8_t>();
    for (double* v : {&g.t0, &g.t1, &g.D0, &g.D1, &g.E, &g.cond_K}) *v = r.get<double>();
    g.position = r.get<std::int64_t>();
    g.evaluations = r.get<std::int64_t>();
    g.seconds = r.get<double>();
    g.witness = r.get_doubles();
    out.gen.push_back(std::move(g));
  }
  const auto array_count = r.get<std::uint64_t>();
  if (array_count > bytes.size()) throw std::runtime_error("corrupt task output message (arrays)");
  for (std::uint64_t i = 0; i < array_count; ++i) {
    TaskArray a;
    a.name = r.get_string();
    a.position = r.get<std::int64_t>();
    const auto rows = r.get<std::int64_t>();
    const auto cols = r.get<std::int64_t>();
    const auto values = r.get_doubles();
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
