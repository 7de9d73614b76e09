// The checksum of a task table (schema::attr::kTaskTableCrc32): zlib's CRC-32 of the bytes the
// Python reader can reproduce with numpy and zlib from the stored columns (analysis/FORMAT.md).
#include <zlib.h>

#include <bit>
#include <cstring>

#include "io/layout.hpp"
#include "io/schema.hpp"

namespace wordsens::io::detail {

namespace {

static_assert(std::endian::native == std::endian::little,
              "the task table checksum is defined over little-endian bytes");

class Crc {
 public:
  void add(const void* data, std::size_t size) {
    crc_ = crc32_z(crc_, static_cast<const Bytef*>(data), size);
  }
  // One column: each task's value as T.
  template <typename T, typename F>
  void column(const std::vector<TaskSpec>& tasks, F field) {
    std::vector<T> values;
    values.reserve(tasks.size());
    for (const auto& task : tasks) values.push_back(static_cast<T>(field(task)));
    add(values.data(), values.size() * sizeof(T));
  }
  [[nodiscard]] std::uint32_t value() const { return static_cast<std::uint32_t>(crc_); }

 private:
  uLong crc_ = crc32_z(0, nullptr, 0);
};

}  // namespace

std::uint32_t task_table_crc32(const std::string& config_text, const std::vector<TaskSpec>& tasks) {
  Crc crc;
  crc.add(config_text.data(), config_text.size());
  crc.column<std::uint32_t>(tasks, [](const TaskSpec& t) { return t.task_id; });
  crc.column<std::uint32_t>(tasks, [](const TaskSpec& t) { return t.point_id; });
  crc.column<std::uint8_t>(tasks, [](const TaskSpec& t) { return t.experiment; });
  std::vector<char> models(tasks.size() * schema::kModelLength, '\0');
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    std::memcpy(models.data() + i * schema::kModelLength, tasks[i].model.data(),
                std::min(tasks[i].model.size(), schema::kModelLength));
  }
  crc.add(models.data(), models.size());
  crc.column<std::int64_t>(tasks, [](const TaskSpec& t) { return t.n; });
  crc.column<std::int64_t>(tasks, [](const TaskSpec& t) { return t.d; });
  crc.column<std::int64_t>(tasks, [](const TaskSpec& t) { return t.k; });
  crc.column<std::int64_t>(tasks, [](const TaskSpec& t) { return t.N; });
  crc.column<std::int64_t>(tasks, [](const TaskSpec& t) { return t.layers; });
  crc.column<std::int64_t>(tasks, [](const TaskSpec& t) { return t.words; });
  crc.column<std::uint32_t>(tasks, [](const TaskSpec& t) { return t.trial; });
  return crc.value();
}

}  // namespace wordsens::io::detail
