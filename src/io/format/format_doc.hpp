#pragma once
// What analysis/FORMAT.md prints from the writer's own description of the format, so that the
// page cannot drift from it (tests/unit/io/format_doc_test.cpp compares them). Public: no HDF5
// type in it.
#include <string>
#include <utility>
#include <vector>

namespace wordsens::io {

/// The column table of a group ("/tasks", "/ws", "/gen", "/witness", "/models") as FORMAT.md
/// prints it: one Markdown row per column with its dtype, unit and meaning (the same text the
/// file stores in each dataset's `unit` and `meaning` attributes).
[[nodiscard]] std::string column_table_markdown(const std::string& group);

/// analysis/FORMAT.md's table of the keys of /config (format 1.11): each study key, its kind and
/// how it is stored (io/format/stored_config.cpp).
[[nodiscard]] std::string stored_config_markdown();

/// Every table, dataset and root attribute that a format after 1.0 added, with the minor version
/// that added it ("ws/row_crc32" 6, "models" 7 for a whole table, "@task_table_crc32" 5 for an
/// attribute): what the readers refuse in a file whose format_version predates it.
[[nodiscard]] std::vector<std::pair<std::string, int>> format_additions();

}  // namespace wordsens::io
