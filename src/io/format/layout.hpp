#pragma once
// Internal to io/: the layout of a results file (which columns each table has, in which type),
// how it is created, and how an existing file is opened and checked. Names come from schema.hpp.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/format/file_contents.hpp"
#include "io/h5/h5.hpp"
#include "study/record_fields.hpp"
#include "study/task.hpp"

namespace wordsens::io::detail {

enum class Kind : std::uint8_t { f64, i64, u32, u8, str, name };  // str: model, name: array

/// A row column: one element per row. `unit` and `meaning` are written as the dataset's
/// attributes of the same names, so a file describes itself.
struct Column {
  std::string name;
  Kind kind;
  std::string unit;
  std::string meaning;
  int since_minor = 0;  // the format minor version that added it (older files may lack it)
};

/// A flat value array (its own length) whose row r is values[offset[r], offset[r] + length[r]).
struct FlatArray {
  std::string values;  // the flat dataset
  Kind kind;           // f64 or i64
  std::string offset;  // the row column of offsets
  std::string length;  // the row column of lengths; "" in /witness, where the length is rows·cols
  std::string unit;
  std::string meaning;
  int since_minor = 0;
};

/// How many rows a done task has in a record table (the consistency check enforces it).
enum class RowsPerTask : std::uint8_t { any, exactly_one, at_least_one };

struct Table {
  const char* group;
  std::vector<Column> columns;
  std::vector<FlatArray> flats;
  bool records = false;  // /ws, /gen, /witness: appended task by task, orphan rows may trail
  // Record tables only: the columns no two rows of done tasks share (task_id first), the rows a
  // done task has, and the experiment whose tasks the rows belong to (-1: either).
  std::vector<std::string> key = {};
  RowsPerTask rows_per_task = RowsPerTask::any;
  int experiment = -1;
  int since_minor = 0;  // the format minor version that added the table (older files lack it)
};

/// The root attributes a format after 1.0 added, with the minor version that added each.
const std::vector<std::pair<const char*, int>>& attribute_additions();

/// Every table: tasks, ws, gen, witness, summary/ws, summary/gen, models. The ws and gen columns
/// follow the record schemas of study/record_fields.hpp.
const std::vector<Table>& tables();
/// The table of one group (std::logic_error for an unknown group).
const Table& table(const char* group);

/// The column kind of a record field type.
Kind kind_of(FieldType type);

/// Writes the root attributes, all groups and all (empty) columns, and the task table.
void write_layout(const h5::Handle& file, const RunProvenance& provenance,
                  const std::vector<TaskSpec>& tasks, const std::vector<std::string>& merged_from);

/// Opens `path` for reading after checking that it exists, is HDF5, is a wordsens results
/// file and has a major format version this build reads (InputError otherwise). A file with the
/// HDF5 signature that HDF5 cannot open or whose root attributes cannot be read is damaged
/// (DamagedFileError).
h5::Handle open_checked(const std::string& path, h5::Access access);

/// The DamagedFileError of every damaged-file message: "<path>: damaged or not a wordsens
/// results file (<detail>)".
DamagedFileError damaged_file(const std::string& path, const std::string& detail);

/// InputError unless `path` is an existing regular file: "no such file", "is a directory", "is
/// not a regular file (a FIFO, a device, …)". `what` names the role ("results file").
void require_regular_file(const std::string& path, const std::string& what);

/// A write refused by a full disk or a file-size limit can leave a file shorter than the end
/// address its superblock records, and HDF5 then refuses it ("truncated file"). The missing tail
/// held only the failed writes, so the writer that resumes it (holding its lock) extends it with
/// zeros, as a sparse file on a full tmpfs already is; the consistency check that follows
/// decides whether it is usable. Returns true when it extended the file.
bool extend_truncated(const std::string& path);

/// The format version of an open results file ({major, minor}).
std::vector<int> format_version(const h5::Handle& file);

std::vector<TaskSpec> read_tasks(const h5::Handle& file);

/// The models a task table runs, in the catalogue's order, each once: the rows of /models.
std::vector<ModelKind> models_run_by(const std::vector<TaskSpec>& tasks);

/// The code /models/width stores for a model's width (format 1.10 on): 0 none, 1 random features
/// (the k grid), 2 its MLP's (the mlp-width grid).
std::uint8_t width_code(ModelWidth width);

/// schema::attr::kTaskTableCrc32 of a configuration text and its task table
/// (io/format/task_table_crc.cpp); `with_heads`: whether the table has the heads column (every
/// writer from format 1.8 on), which the checksum then covers. `mlp_width_stored`: whether the
/// table stores block's MLP width as its k (format 1.9 on); before, the checksum covered a k of 0
/// for block (read_tasks gives the width it ran).
std::uint32_t task_table_crc32(const std::string& config_text, const std::vector<TaskSpec>& tasks,
                               bool with_heads = true, bool mlp_width_stored = true);

/// Whether the file's /tasks/k holds block's MLP width (format 1.9 on; read_tasks maps a 0 of an
/// older file to the width its block ran).
bool stores_mlp_width(const h5::Handle& file);

/// The `key = value` lines of a configuration text as a map (a key under an INI section `[s]`
/// is `s.key`; comments and blank lines skipped): what resume compares and old files read.
std::map<std::string, std::string> parse_config(const std::string& text);

std::string utc_now();                             // 2026-11-26T00:10:00Z
std::string config_hash(const std::string& text);  // FNV-1a 64, 16 hex digits
std::string join(const std::vector<std::string>& parts, const std::string& separator);

}  // namespace wordsens::io::detail
