#pragma once
// Each record's columns, described once: name, type, unit, one-line meaning, and where the value
// lives in the record. The results file's layout, appends and reads (io/format/layout.cpp,
// io/results_file.cpp, io/results_reader.cpp), the per-column `unit` and `meaning` attributes of
// the file, the MPI encoding of a record (study/task_output.cpp) and the column tables of
// analysis/FORMAT.md (checked by tests/unit/io/format_doc_test.cpp) all follow these tables, so a
// new column is one line here plus its test.
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "study/records.hpp"

namespace wordsens {

/// The element types a column may have (the order of the member variants below).
enum class FieldType : std::uint8_t { f64, i64, u32, u8 };

/// The values a column may hold. A stored value outside them cannot come from a run: the
/// readers of a results file refuse it as damage (io/integrity/content_checks.cpp;
/// analysis/FORMAT.md "Valid values"; the Python reader's names.VALID mirrors this table).
enum class Valid : std::uint8_t {
  any,                 // not checked (task ids: the consistency check has its own rules)
  finite,              // a finite number
  nonnegative,         // finite and >= 0
  positive,            // finite and > 0 (a norm the record divides by)
  certified,           // a relative error within the certification tolerance: 0 <= value <= 1e-9
  nonnegative_or_nan,  // >= 0 (+inf allowed), or NaN where not computed
  code_0_1,            // 0 or 1
  code_0_2,            // 0, 1 or 2
  count,               // an integer >= 0
  position,            // a word position of the task's text: 0 <= value < n
  position_or_none,    // a position, or -1 (several changed words)
};

/// One value per row.
template <typename Record>
struct ScalarField {
  using Member = std::variant<double Record::*, std::int64_t Record::*, std::uint32_t Record::*,
                              std::uint8_t Record::*>;
  const char* name;
  const char* unit;  // "1" for dimensionless numbers, "s", "count", …
  const char* meaning;
  Valid valid;
  Member member;
  int since_minor = 0;       // the results-format minor version that added the column
  bool reproducible = true;  // false: wall-clock values, left out of bitwise comparisons

  [[nodiscard]] FieldType type() const { return static_cast<FieldType>(member.index()); }
};

/// A variable-length array per row, stored as the row columns <name>_offset and <name>_length
/// into the flat dataset <name>_values.
template <typename Record>
struct RaggedField {
  using Member = std::variant<std::vector<double> Record::*, std::vector<std::int64_t> Record::*>;
  const char* name;
  const char* unit;
  const char* meaning;
  Valid valid;  // of each value of the row's array
  Member member;
  int since_minor = 0;        // the results-format minor version that added the column
  bool witness_only = false;  // filled only when the run saves witnesses (--save-witness)

  [[nodiscard]] FieldType type() const {
    return member.index() == 0 ? FieldType::f64 : FieldType::i64;
  }
  [[nodiscard]] std::string offset_column() const { return std::string(name) + "_offset"; }
  [[nodiscard]] std::string length_column() const { return std::string(name) + "_length"; }
  [[nodiscard]] std::string values_dataset() const { return std::string(name) + "_values"; }
};

template <typename Record>
struct RecordSchema {
  std::span<const ScalarField<Record>> scalars;
  std::span<const RaggedField<Record>> ragged;
};

[[nodiscard]] const RecordSchema<WsRecord>& ws_schema();
[[nodiscard]] const RecordSchema<GenRecord>& gen_schema();

/// Whether `value` is valid under `rule` for a task of `n` words.
[[nodiscard]] bool is_valid(Valid rule, double value, std::int64_t n);
/// What `rule` allows, as FORMAT.md words it ("finite, >= 0").
[[nodiscard]] const char* describe(Valid rule);

/// The HDF5-style name of a field type, as FORMAT.md writes it: float64, int64, uint32, uint8.
[[nodiscard]] const char* type_name(FieldType type);

}  // namespace wordsens
