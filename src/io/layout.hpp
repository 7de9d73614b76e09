#pragma once
// Internal to io/: the layout of a results file (which columns each table has, in which type),
// how it is created, and how an existing file is opened and checked. Names come from schema.hpp.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "grid/task.hpp"
#include "io/h5.hpp"
#include "io/results_file.hpp"

namespace wordsens::io::detail {

enum class Kind : std::uint8_t { f64, i64, u32, u8, str, name };  // str: model, name: array

struct Column {
  std::string name;
  Kind kind;
};

/// The per-row columns of each table (the flat value arrays are not listed).
const std::vector<Column>& task_columns();
const std::vector<Column>& ws_columns();
const std::vector<Column>& gen_columns();
const std::vector<Column>& witness_columns();
const std::vector<Column>& summary_ws_columns();
const std::vector<Column>& summary_gen_columns();

/// The group of each table and the name of its flat value array ("" for none).
struct Table {
  const char* group;
  const std::vector<Column>& (*columns)();
  const char* values;
};
const std::vector<Table>& tables();  // tasks, ws, gen, witness, summary/ws, summary/gen

/// Writes the root attributes, all groups and all (empty) columns, and the task table.
void write_layout(const h5::Handle& file, const RunProvenance& provenance,
                  const std::vector<TaskSpec>& tasks, const std::vector<std::string>& merged_from);

/// Opens `path` for reading after checking that it exists, is HDF5, is a wordsens results
/// file and has a major format version this build reads (InputError otherwise).
h5::Handle open_checked(const std::string& path, h5::Access access);

std::vector<TaskSpec> read_tasks(const h5::Handle& file);

std::string utc_now();                             // 2026-11-26T00:10:00Z
std::string config_hash(const std::string& text);  // FNV-1a 64, 16 hex digits
std::string join(const std::vector<std::string>& parts, const std::string& separator);

}  // namespace wordsens::io::detail

namespace wordsens::io::detail {

/// The records of done tasks, sorted (see FileContents), and the task table; provenance
/// attributes are filled too. Works on a file open in any mode.
FileContents read_contents(const h5::Handle& file, const ReadOptions& options = {});

/// Rewrites /summary/ws and /summary/gen from `contents` (SWMR-safe: resizes and writes only).
void write_summary_tables(const h5::Handle& file, const FileContents& contents);

}  // namespace wordsens::io::detail
