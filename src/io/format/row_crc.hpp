#pragma once
// Internal to io/: the checksum of one row of a record table (/ws, /gen, /witness), stored in
// its column row_crc32 (format 1.6 on). HDF5's Fletcher-32 sees a damaged chunk, except one
// zeroed whole with its checksum, which reads as valid zeros; chunks are one page, so a zeroed
// page of the file does that. The row checksum covers the row's values across its columns and
// flat arrays, which lie in other pages, so such zeros fail it. Defined in analysis/FORMAT.md
// ("Row checksums"), which the Python reader implements with zlib and numpy.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "io/format/layout.hpp"

namespace wordsens::io::detail {

/// What a row checksum covers, in order: the table's row columns sorted by name (all but
/// row_crc32 and the offsets into flat arrays, which a merge renumbers), then the row's values
/// of each flat array, the arrays sorted by name.
struct RowCrcPlan {
  std::vector<std::string> columns;
  std::vector<const FlatArray*> flats;
};
RowCrcPlan row_crc_plan(const Table& table);

/// True when the table carries row checksums (the record tables).
bool has_row_crc(const Table& table);

/// zlib's CRC-32 of the row: `column(name)` gives the stored bytes of the row's element of a
/// row column, `flat(array)` the stored bytes of the row's values of a flat array.
std::uint32_t row_crc32(const RowCrcPlan& plan,
                        const std::function<std::string_view(const std::string&)>& column,
                        const std::function<std::string_view(const FlatArray&)>& flat);

}  // namespace wordsens::io::detail
