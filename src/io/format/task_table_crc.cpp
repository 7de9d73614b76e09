// The checksum of a task table (schema::attr::kTaskTableCrc32): zlib's CRC-32 of the bytes the
// Python reader can reproduce with numpy and zlib from the stored columns (analysis/FORMAT.md).
#include <bit>
#include <cstring>

#include "io/format/crc32.hpp"
#include "io/format/format_minors.hpp"
#include "io/format/layout.hpp"
#include "io/format/schema.hpp"
#include "models/shared/model_kind.hpp"

namespace wordsens::io::detail {

namespace {

static_assert(std::endian::native == std::endian::little,
              "the task table checksum is defined over little-endian bytes");

// One column of the task table: each task's value as T.
template <typename T, typename F>
void add_column(Crc32& crc, const std::vector<TaskSpec>& tasks, F field) {
  std::vector<T> values;
  values.reserve(tasks.size());
  for (const auto& task : tasks) values.push_back(static_cast<T>(field(task)));
  crc.add(values.data(), values.size() * sizeof(T));
}

}  // namespace

std::uint32_t task_table_crc32(const std::string& config_text, const std::vector<TaskSpec>& tasks,
                               bool with_heads, bool mlp_width_stored) {
  Crc32 crc;
  crc.add(config_text.data(), config_text.size());
  add_column<std::uint32_t>(crc, tasks, [](const TaskSpec& t) { return t.task_id; });
  add_column<std::uint32_t>(crc, tasks, [](const TaskSpec& t) { return t.point_id; });
  add_column<std::uint8_t>(crc, tasks, [](const TaskSpec& t) { return t.experiment; });
  std::vector<char> models(tasks.size() * schema::kModelLength, '\0');
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::string name = to_string(tasks[i].model);
    std::memcpy(models.data() + i * schema::kModelLength, name.data(),
                std::min(name.size(), schema::kModelLength));
  }
  crc.add(models.data(), models.size());
  add_column<std::int64_t>(crc, tasks, [](const TaskSpec& t) { return t.n; });
  add_column<std::int64_t>(crc, tasks, [](const TaskSpec& t) { return t.d; });
  add_column<std::int64_t>(crc, tasks, [&](const TaskSpec& t) {
    return mlp_width_stored ? t.k : stored_k_before_1_9(t.model, t.k);
  });
  add_column<std::int64_t>(crc, tasks, [](const TaskSpec& t) { return t.N; });
  add_column<std::int64_t>(crc, tasks, [](const TaskSpec& t) { return t.layers; });
  if (with_heads) {
    add_column<std::int64_t>(crc, tasks, [](const TaskSpec& t) { return t.heads; });
  }
  add_column<std::int64_t>(crc, tasks, [](const TaskSpec& t) { return t.words; });
  add_column<std::uint32_t>(crc, tasks, [](const TaskSpec& t) { return t.trial; });
  return crc.value();
}

}  // namespace wordsens::io::detail
