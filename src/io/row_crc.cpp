// The checksum of a record row (row_crc.hpp).
#include "io/row_crc.hpp"

#include <zlib.h>

#include <algorithm>

#include "io/schema.hpp"

namespace wordsens::io::detail {

bool has_row_crc(const Table& table) {
  return std::any_of(table.columns.begin(), table.columns.end(),
                     [](const Column& c) { return c.name == schema::col::kRowCrc32; });
}

RowCrcPlan row_crc_plan(const Table& table) {
  RowCrcPlan plan;
  for (const auto& column : table.columns) {
    const bool offset = std::any_of(table.flats.begin(), table.flats.end(),
                                    [&](const FlatArray& f) { return f.offset == column.name; });
    if (column.name != schema::col::kRowCrc32 && !offset) plan.columns.push_back(column.name);
  }
  std::sort(plan.columns.begin(), plan.columns.end());
  for (const auto& flat : table.flats) plan.flats.push_back(&flat);
  std::sort(plan.flats.begin(), plan.flats.end(),
            [](const FlatArray* a, const FlatArray* b) { return a->values < b->values; });
  return plan;
}

std::uint32_t row_crc32(const RowCrcPlan& plan,
                        const std::function<std::string_view(const std::string&)>& column,
                        const std::function<std::string_view(const FlatArray&)>& flat) {
  uLong crc = crc32_z(0, nullptr, 0);
  const auto add = [&](std::string_view bytes) {
    // zlib's crc32 of a null buffer returns the initial value, whatever the crc so far.
    if (bytes.empty()) return;
    crc = crc32_z(crc, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size());
  };
  for (const auto& name : plan.columns) add(column(name));
  for (const FlatArray* array : plan.flats) add(flat(*array));
  return static_cast<std::uint32_t>(crc);
}

}  // namespace wordsens::io::detail
