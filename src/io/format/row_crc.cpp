// The checksum of a record row (row_crc.hpp).
#include "io/format/row_crc.hpp"

#include <algorithm>

#include "io/format/crc32.hpp"
#include "io/format/schema.hpp"

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
  Crc32 crc;
  for (const auto& name : plan.columns) crc.add(column(name));
  for (const FlatArray* array : plan.flats) crc.add(flat(*array));
  return crc.value();
}

}  // namespace wordsens::io::detail
