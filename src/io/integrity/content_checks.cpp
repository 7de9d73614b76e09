// The checks of a results file's content (detail::check_content): every dataset reads back
// through its checksums, every record value is one a run can write, and the task table is the
// one its configuration plans. consistency.cpp checks how the tables fit together; these check
// what they hold, so that a flipped bit or an edited table is damage rather than a number.
#include <cmath>
#include <functional>
#include <map>
#include <unordered_map>
#include <variant>

#include "io/format/layout.hpp"
#include "io/format/row_crc.hpp"
#include "io/format/schema.hpp"
#include "io/h5/h5.hpp"
#include "io/integrity/integrity.hpp"
#include "io/integrity/tally.hpp"
#include "study/config_text.hpp"

namespace wordsens::io::detail {

namespace {

namespace c = schema::col;

std::string number(double value) {
  if (std::isnan(value)) return "nan";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// Every dataset of every table reads back: HDF5 verifies each chunk's checksum (format 1.5 on)
// and the metadata that leads to it. A file of that format whose dataset lacks the checksum
// was rewritten by another tool.
void check_datasets(const h5::Handle& file, int minor, Diagnosis& d) {
  const bool checksummed = minor >= schema::kChecksumMinor;
  for (const Table& table : tables()) {
    std::vector<std::string> names;
    for (const auto& column : table.columns) names.push_back(column.name);
    for (const auto& flat : table.flats) names.push_back(flat.values);
    h5::Handle group;
    try {
      group = h5::open_group(file, table.group);
    } catch (const h5::Error&) {
      continue;  // a missing or unreadable group: consistency.cpp reports it
    }
    for (const auto& name : names) {
      const std::string where = std::string(table.group) + "/" + name;
      try {
        if (!h5::exists(group, name)) continue;  // consistency.cpp reports it
        const h5::Handle dataset = h5::open_dataset(group, name);
        if (checksummed && !h5::has_checksum(dataset)) {
          d.problems.push_back(where + " has no checksum (rewritten by another tool?)");
        }
        h5::read_every_row(dataset);
      } catch (const h5::Error& e) {
        d.problems.push_back(where + " cannot be read back (" + e.what() + ")");
        if (!h5::is_data_checksum(e)) {
          // Metadata HDF5 cannot read: each further read may wait through HDF5's metadata
          // retries again (about 0.3 s each), so stop here to answer within seconds.
          d.notes.push_back("the datasets after " + where + " were not read back");
          return;
        }
      }
    }
  }
  if (!checksummed) {
    d.notes.push_back("format 1." + std::to_string(minor) +
                      " predates the checksums of the data (format 1." +
                      std::to_string(schema::kChecksumMinor) +
                      "): a damaged value in it cannot be told from a good one");
  }
}

// The rows of done tasks of one record table hold values a run can write (record_fields.cpp).
template <typename Record>
void check_values(const h5::Handle& file, const char* group_name,
                  const RecordSchema<Record>& schema,
                  const std::unordered_map<std::uint32_t, const TaskSpec*>& done, Diagnosis& d) {
  const h5::Handle group = h5::open_group(file, group_name);
  const auto ids = h5::read_all<std::uint32_t>(h5::open_dataset(group, c::kTaskId));
  std::vector<std::pair<std::size_t, const TaskSpec*>> rows;  // row, its done task
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (const auto found = done.find(ids[i]); found != done.end())
      rows.emplace_back(i, found->second);
  }
  const auto rows_of = [&](const std::string& name) {
    return h5::read_all<double>(h5::open_dataset(group, name));
  };
  const auto outside = [&](const std::string& name, Valid rule) {
    return Tally(std::string(group_name) + "/" + name +
                 " holds values outside what a run writes (" + describe(rule) + ")");
  };
  for (const auto& field : schema.scalars) {
    if (field.valid == Valid::any || !h5::exists(group, field.name)) continue;
    const auto values = rows_of(field.name);
    Tally bad = outside(field.name, field.valid);
    for (const auto& [row, task] : rows) {
      if (row < values.size() && !is_valid(field.valid, values[row], task->n)) {
        bad.add("row " + std::to_string(row) + ": " + number(values[row]));
      }
    }
    bad.report(d.problems);
  }
  for (const auto& field : schema.ragged) {
    if (!h5::exists(group, field.values_dataset()) || !h5::exists(group, field.offset_column()) ||
        !h5::exists(group, field.length_column())) {
      continue;
    }
    const auto values = rows_of(field.values_dataset());
    const auto offsets = h5::read_all<std::int64_t>(h5::open_dataset(group, field.offset_column()));
    const auto lengths = h5::read_all<std::int64_t>(h5::open_dataset(group, field.length_column()));
    Tally bad = outside(field.values_dataset(), field.valid);
    for (const auto& [row, task] : rows) {
      if (row >= offsets.size() || row >= lengths.size()) continue;  // consistency.cpp's
      const std::int64_t first = offsets[row], size = lengths[row];
      if (first < 0 || size < 0 || first > static_cast<std::int64_t>(values.size()) - size)
        continue;
      for (std::int64_t i = first; i < first + size; ++i) {
        if (!is_valid(field.valid, values[static_cast<std::size_t>(i)], task->n)) {
          bad.add("row " + std::to_string(row) + ", element " + std::to_string(i - first) + ": " +
                  number(values[static_cast<std::size_t>(i)]));
          break;
        }
      }
    }
    bad.report(d.problems);
  }
}

// The rows of done tasks match their row checksums (format 1.6 on): a chunk zeroed whole with
// its Fletcher-32 checksum reads back, but not as the values its rows were written with.
void check_row_crcs(const h5::Handle& file, const Table& table,
                    const std::unordered_map<std::uint32_t, const TaskSpec*>& done, Diagnosis& d) {
  const h5::Handle group = h5::open_group(file, table.group);
  if (!h5::exists(group, c::kRowCrc32)) return;  // consistency.cpp reports it missing
  const auto stored = h5::read_all<std::uint32_t>(h5::open_dataset(group, c::kRowCrc32));
  const auto ids = h5::read_all<std::uint32_t>(h5::open_dataset(group, c::kTaskId));
  const RowCrcPlan plan = row_crc_plan(table);
  struct Bytes {
    std::vector<unsigned char> bytes;
    std::size_t element = 0;
    std::string_view at(std::size_t first, std::size_t count) const {
      return {reinterpret_cast<const char*>(bytes.data()) + first * element, count * element};
    }
    std::size_t rows() const { return element == 0 ? 0 : bytes.size() / element; }
  };
  std::map<std::string, Bytes> columns;
  for (const auto& name : plan.columns) {
    Bytes& b = columns[name];
    b.bytes = h5::read_stored_bytes(h5::open_dataset(group, name), b.element);
  }
  struct Flat {
    Bytes values;
    std::vector<std::int64_t> first, count;
  };
  std::map<std::string, Flat> flats;
  for (const FlatArray* array : plan.flats) {
    Flat& f = flats[array->values];
    f.values.bytes =
        h5::read_stored_bytes(h5::open_dataset(group, array->values), f.values.element);
    f.first = h5::read_all<std::int64_t>(h5::open_dataset(group, array->offset));
    if (array->length.empty()) {  // /witness: an array of rows × cols values
      const auto rows = h5::read_all<std::int64_t>(h5::open_dataset(group, c::kRows));
      const auto cols = h5::read_all<std::int64_t>(h5::open_dataset(group, c::kCols));
      for (std::size_t i = 0; i < rows.size() && i < cols.size(); ++i)
        f.count.push_back(rows[i] * cols[i]);
    } else {
      f.count = h5::read_all<std::int64_t>(h5::open_dataset(group, array->length));
    }
  }
  Tally bad(std::string(table.group) + " has rows that do not match their checksum " +
            c::kRowCrc32);
  for (std::size_t row = 0; row < ids.size() && row < stored.size(); ++row) {
    if (done.find(ids[row]) == done.end()) continue;
    bool readable = true;  // a row past a column's end or outside its flat array is
    for (const auto& [name, b] : columns) readable = readable && row < b.rows();
    for (const auto& [name, f] : flats) {
      readable = readable && row < f.first.size() && row < f.count.size() && f.first[row] >= 0 &&
                 f.count[row] >= 0 &&
                 f.first[row] <= static_cast<std::int64_t>(f.values.rows()) - f.count[row];
    }
    if (!readable) continue;  // consistency.cpp's to report
    const std::uint32_t crc = row_crc32(
        plan, [&](const std::string& name) { return columns.at(name).at(row, 1); },
        [&](const FlatArray& array) {
          const Flat& f = flats.at(array.values);
          return f.values.at(static_cast<std::size_t>(f.first[row]),
                             static_cast<std::size_t>(f.count[row]));
        });
    if (crc != stored[row]) bad.add("row " + std::to_string(row));
  }
  bad.report(d.problems);
}

std::string describe_difference(const TaskSpec& stored, const TaskSpec& planned) {
  const std::vector<std::tuple<const char*, std::string, std::string>> fields = {
      {c::kTaskId, std::to_string(stored.task_id), std::to_string(planned.task_id)},
      {c::kPointId, std::to_string(stored.point_id), std::to_string(planned.point_id)},
      {c::kExperiment, to_string(stored.experiment), to_string(planned.experiment)},
      {c::kModel, to_string(stored.model), to_string(planned.model)},
      {c::kN, std::to_string(stored.n), std::to_string(planned.n)},
      {c::kD, std::to_string(stored.d), std::to_string(planned.d)},
      {c::kK, std::to_string(stored.k), std::to_string(planned.k)},
      {c::kNTrain, std::to_string(stored.N), std::to_string(planned.N)},
      {c::kLayers, std::to_string(stored.layers), std::to_string(planned.layers)},
      {c::kHeads, std::to_string(stored.heads), std::to_string(planned.heads)},
      {c::kWords, std::to_string(stored.words), std::to_string(planned.words)},
      {c::kTrial, std::to_string(stored.trial), std::to_string(planned.trial)}};
  for (const auto& [name, have, want] : fields) {
    if (have != want) return std::string(name) + " " + have + ", planned " + want;
  }
  return "";
}

// The task table is the one its configuration plans: its checksum (format 1.5 on) says it was
// not edited since it was written, and the study's planner recomputes it from config_text, column
// by column.
void check_plan(const h5::Handle& file, int minor, const std::string& config_text,
                const std::vector<TaskSpec>& tasks, Diagnosis& d) {
  namespace a = schema::attr;
  if (h5::has_attribute(file, a::kTaskTableCrc32)) {
    const auto stored = h5::read_int_attribute(file, a::kTaskTableCrc32);
    // A heads column removed from a file that had one changes the bytes covered: still a
    // mismatch.
    const bool with_heads = h5::exists(h5::open_group(file, schema::kTasks), c::kHeads);
    if (stored != static_cast<std::int64_t>(
                      task_table_crc32(config_text, tasks, with_heads, stores_mlp_width(file)))) {
      d.problems.push_back(
          "the task table or config_text does not match its checksum task_table_crc32 (edited "
          "after the run planned it)");
    }
  } else if (minor >= schema::kChecksumMinor) {
    d.problems.push_back(std::string("the root attribute ") + a::kTaskTableCrc32 + " is missing");
  }
  std::vector<TaskSpec> planned;
  try {
    planned = plan_of_config_text(config_text);
  } catch (const std::exception& e) {
    d.notes.push_back(std::string("this wordsens cannot plan the stored configuration (") +
                      e.what() + "), so the task table was not compared with its plan");
    return;
  }
  if (planned.size() != tasks.size()) {
    d.problems.push_back("the task table has " + std::to_string(tasks.size()) +
                         " tasks, but config_text plans " + std::to_string(planned.size()));
    return;
  }
  Tally differs("the task table differs from the plan of config_text");
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::string difference = describe_difference(tasks[i], planned[i]);
    if (!difference.empty()) differs.add("row " + std::to_string(i) + ": " + difference);
  }
  differs.report(d.problems);
}

// /models (format 1.7 on) lists the models of the task table, each once in the catalogue's order,
// with the traits a reader takes from it: a table that says otherwise would make the analysis
// treat a model as another kind (attention as random features). The sphere-start minimum is a
// search default a later build may change: a difference is noted, not a problem.
void check_models(const h5::Handle& file, int minor, const std::vector<TaskSpec>& tasks,
                  Diagnosis& d) {
  const h5::Handle group = h5::open_group(file, schema::kModels);
  const auto names = h5::read_strings(h5::open_dataset(group, c::kModel));
  const auto attention = h5::read_all<std::uint8_t>(h5::open_dataset(group, c::kAttention));
  const auto deep = h5::read_all<std::uint8_t>(h5::open_dataset(group, c::kDeep));
  const auto marginal = h5::read_all<std::uint8_t>(h5::open_dataset(group, c::kMarginalSampler));
  const auto starts = h5::read_all<std::int64_t>(h5::open_dataset(group, c::kMinTotalSphereStarts));
  // Format 1.10 on: the catalogue's other traits (none before: nothing to compare).
  const bool all_traits = minor >= schema::kAllTraitsMinor;
  const auto flags = [&](const char* column) {
    return all_traits ? h5::read_all<std::uint8_t>(h5::open_dataset(group, column))
                      : std::vector<std::uint8_t>();
  };
  const auto multi_head = flags(c::kMultiHead), width = flags(c::kWidth),
             encoder = flags(c::kEncoder);
  const std::vector<ModelKind> kinds = models_run_by(tasks);
  std::vector<std::string> expected;
  for (const ModelKind kind : kinds) expected.push_back(to_string(kind));
  if (names != expected) {
    d.problems.push_back("/models lists " + (names.empty() ? "no model" : join(names, ", ")) +
                         ", but the task table runs " + join(expected, ", "));
    return;
  }
  Tally differs("/models gives a model other traits than its kind has");
  Tally other_starts("/models gives a sphere-start minimum other than this build's");
  for (std::size_t i = 0; i < names.size(); ++i) {
    const ModelTraits& t = traits(kinds[i]);  // names == expected: row i is kinds[i]
    if (i >= attention.size() || i >= deep.size() || i >= marginal.size() || i >= starts.size() ||
        (all_traits && (i >= multi_head.size() || i >= width.size() || i >= encoder.size()))) {
      differs.add(names[i] + ": a column is cut short");
      continue;
    }
    if (attention[i] != (t.attention ? 1 : 0) || deep[i] != (t.deep ? 1 : 0) ||
        marginal[i] != (t.marginal_sampler ? 1 : 0) ||
        (all_traits && (multi_head[i] != (t.multi_head ? 1 : 0) ||
                        width[i] != width_code(t.width) || encoder[i] != (t.encoder ? 1 : 0)))) {
      differs.add(names[i]);
    }
    if (starts[i] != t.min_total_sphere_starts) {
      other_starts.add(names[i] + " " + std::to_string(starts[i]) + ", this build " +
                       std::to_string(t.min_total_sphere_starts));
    }
  }
  differs.report(d.problems);
  other_starts.report(d.notes);
}

}  // namespace

// Format 1.5 on stores its strings fixed-length: a variable-length one was written by another
// tool, and its text is in the global heap, which no checksum covers.
void check_string_attributes(const h5::Handle& file, int minor, Diagnosis& d) {
  if (minor < schema::kChecksumMinor) return;
  namespace a = schema::attr;
  // By name: listing the attributes could crash HDF5 1.10 on damaged attribute storage.
  for (const char* name :
       {a::kFileType, a::kSoftwareVersion, a::kGitSha, a::kBuild, a::kCreatedUtc, a::kCommandLine,
        a::kConfigText, a::kConfigHash, a::kInputFingerprints, a::kMergedFrom, a::kBuilds}) {
    if (h5::has_attribute(file, name) && h5::is_variable_string_attribute(file, name)) {
      d.problems.push_back(std::string("the root attribute ") + name +
                           " is a variable-length string, which a writer of this format never "
                           "stores (rewritten by another tool?)");
    }
  }
}

void check_content(const h5::Handle& file, int minor, Diagnosis& d) {
  try {
    check_string_attributes(file, minor, d);
  } catch (const h5::Error& e) {
    d.problems.push_back(std::string("cannot read the root attributes (") + e.what() + ")");
  }
  check_datasets(file, minor, d);
  // The checks below read values; a table that does not read back is reported above already.
  try {
    const std::vector<TaskSpec> tasks = read_tasks(file);
    const auto done = h5::read_all<std::uint8_t>(
        h5::open_dataset(h5::open_group(file, schema::kTasks), c::kDone));
    std::unordered_map<std::uint32_t, const TaskSpec*> done_tasks;
    for (std::size_t i = 0; i < tasks.size() && i < done.size(); ++i) {
      if (done[i] == 1) done_tasks.emplace(tasks[i].task_id, &tasks[i]);
    }
    if (minor >= schema::kModelsMinor) {
      try {
        check_models(file, minor, tasks, d);
      } catch (const h5::Error& e) {
        // Consistency names a missing column; the checks below still run.
        d.problems.push_back(std::string("cannot check /models (") + e.what() + ")");
      }
    }
    if (h5::has_attribute(file, schema::attr::kConfigText)) {
      const std::string config_text = h5::read_string_attribute(file, schema::attr::kConfigText);
      check_plan(file, minor, config_text, tasks, d);
      try {
        check_stored_config(file, minor, config_text, d);
      } catch (const h5::Error& e) {
        d.problems.push_back(std::string("cannot check ") + schema::kConfig + " (" + e.what() +
                             ")");
      }
    }
    check_values(file, schema::kWs, ws_schema(), done_tasks, d);
    check_values(file, schema::kGen, gen_schema(), done_tasks, d);
    if (minor >= schema::kRowCrcMinor) {
      for (const Table& table : tables()) {
        if (has_row_crc(table)) check_row_crcs(file, table, done_tasks, d);
      }
    }
  } catch (const std::exception& e) {
    if (!d.damaged()) d.problems.push_back(std::string("cannot check the values: ") + e.what());
  }
  // How the values of one record fit together: only once every table fits and every value
  // reads back and is one a run writes (the records are then read whole).
  if (d.damaged()) return;
  try {
    check_record_invariants(file, d);
  } catch (const std::exception& e) {
    d.problems.push_back(std::string("cannot check the invariants of the records: ") + e.what());
  }
}

}  // namespace wordsens::io::detail
