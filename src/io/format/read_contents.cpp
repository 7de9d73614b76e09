// A whole results file read back into memory (FileContents), and the `key = value` lines of a
// configuration text.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <unordered_set>
#include <variant>

#include "io/format/build_provenance.hpp"
#include "io/format/contents.hpp"
#include "io/format/layout.hpp"
#include "io/format/schema.hpp"
#include "io/h5/h5.hpp"

namespace wordsens::io {

namespace c = schema::col;

namespace {

// Columns of one table, cut to the shortest one (a killed writer may leave them uneven).
// Columns a file of an older format version lacks are skipped (has() says which).
class TableReader {
 public:
  TableReader(const h5::Handle& file, const detail::Table& table)
      : group_(h5::open_group(file, table.group)) {
    rows_ = UINT64_MAX;
    for (const auto& column : table.columns) {
      if (has(column.name))
        rows_ = std::min(rows_, h5::length(h5::open_dataset(group_, column.name)));
    }
    if (rows_ == UINT64_MAX) rows_ = 0;
  }
  [[nodiscard]] bool has(const std::string& name) const { return h5::exists(group_, name); }
  [[nodiscard]] std::uint64_t rows() const { return rows_; }
  template <typename T>
  std::vector<T> get(const std::string& name) const {
    return h5::read_range<T>(h5::open_dataset(group_, name), 0, rows_);
  }
  [[nodiscard]] std::vector<std::string> strings(const char* name) const {
    auto values = h5::read_strings(h5::open_dataset(group_, name));
    values.resize(rows_);
    return values;
  }
  template <typename T>
  [[nodiscard]] std::vector<T> values(const std::string& name) const {
    return h5::read_all<T>(h5::open_dataset(group_, name));
  }

 private:
  h5::Handle group_;
  std::uint64_t rows_ = 0;
};

template <typename T>
std::vector<T> slice(const std::vector<T>& flat, std::int64_t offset, std::int64_t length) {
  if (length <= 0) return {};
  if (offset < 0 || static_cast<std::size_t>(offset + length) > flat.size()) {
    throw std::runtime_error("a witness points past the end of its value array");
  }
  return {flat.begin() + offset, flat.begin() + offset + length};
}

// The rows of done tasks of one record table, field by field as the schema lists them. A column
// added after the file's minor version keeps the record's default (NaN for the floating
// columns); any other missing column is damage and throws. Ragged witnesses are read only when
// asked.
template <typename Record>
std::vector<Record> read_records(const h5::Handle& file, const char* group,
                                 const RecordSchema<Record>& schema, int format_minor,
                                 const std::unordered_set<std::uint32_t>& done_ids, bool witness,
                                 std::vector<std::string>& missing) {
  const TableReader t(file, detail::table(group));
  const auto id = t.get<std::uint32_t>(schema::col::kTaskId);
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    if (done_ids.count(id[i]) != 0) rows.push_back(i);  // others: orphans of an unfinished task
  }
  std::vector<Record> records(rows.size());
  for (const auto& field : schema.scalars) {
    if (format_minor < field.since_minor && !t.has(field.name)) {
      missing.push_back(std::string(group) + "/" + field.name);
      continue;
    }
    std::visit(
        [&](auto member) {
          using T = std::remove_reference_t<decltype(records[0].*member)>;
          const auto column = t.get<T>(field.name);
          for (std::size_t j = 0; j < rows.size(); ++j) records[j].*member = column[rows[j]];
        },
        field.member);
  }
  for (const auto& field : schema.ragged) {
    if (format_minor < field.since_minor && !t.has(field.values_dataset())) {
      missing.push_back(std::string(group) + "/" + field.name);
      continue;
    }
    if (field.witness_only && !witness) continue;
    const auto offset = t.get<std::int64_t>(field.offset_column());
    const auto length = t.get<std::int64_t>(field.length_column());
    std::visit(
        [&](auto member) {
          using T = typename std::remove_reference_t<decltype(records[0].*member)>::value_type;
          const auto flat = t.values<T>(field.values_dataset());
          for (std::size_t j = 0; j < rows.size(); ++j) {
            records[j].*member = slice(flat, offset[rows[j]], length[rows[j]]);
          }
        },
        field.member);
  }
  return records;
}

}  // namespace

namespace detail {

std::map<std::string, std::string> parse_config(const std::string& text) {
  std::map<std::string, std::string> entries;
  std::string section;
  std::size_t start = 0;
  const auto trim = [](std::string s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string::npos) return std::string();
    const auto last = s.find_last_not_of(" \t\r");
    return s.substr(first, last - first + 1);
  };
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = trim(text.substr(start, end - start));
    start = end + 1;
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    // INI sections qualify the keys below them: "[ws]" then "trials = 3" is "ws.trials".
    if (line.front() == '[' && line.back() == ']') {
      section = trim(line.substr(1, line.size() - 2));
      continue;
    }
    const auto equals = line.find('=');
    const std::string key = trim(line.substr(0, equals));
    const std::string value = equals == std::string::npos ? "" : trim(line.substr(equals + 1));
    entries[section.empty() ? key : section + "." + key] = value;
  }
  return entries;
}

FileContents read_contents(const h5::Handle& file, const ReadOptions& options,
                           const std::vector<std::uint8_t>* done) {
  namespace a = schema::attr;
  FileContents out;
  out.filetype = h5::read_string_attribute(file, a::kFileType);
  const auto version = h5::read_int_array_attribute(file, a::kFormatVersion);
  out.format_major = version.at(0);
  out.format_minor = version.at(1);
  out.software_version = h5::read_string_attribute(file, a::kSoftwareVersion);
  out.git_sha = h5::read_string_attribute(file, a::kGitSha);
  if (h5::has_attribute(file, a::kBuild)) out.build = h5::read_string_attribute(file, a::kBuild);
  out.created_utc = h5::read_string_attribute(file, a::kCreatedUtc);
  out.config_hash = h5::read_string_attribute(file, a::kConfigHash);
  out.provenance.command_line = h5::read_string_attribute(file, a::kCommandLine);
  out.provenance.mpi_ranks = static_cast<int>(h5::read_int_attribute(file, a::kMpiRanks));
  out.provenance.master_seed =
      static_cast<std::uint32_t>(h5::read_int_attribute(file, a::kMasterSeed));
  out.provenance.config_text = h5::read_string_attribute(file, a::kConfigText);
  out.provenance.save_witness = h5::read_int_attribute(file, a::kSaveWitness) != 0;
  if (h5::has_attribute(file, a::kInputFingerprints)) {
    out.provenance.input_fingerprints = h5::read_string_attribute(file, a::kInputFingerprints);
  }
  // A line that is not one is damage (std::invalid_argument; read_results names the file).
  if (h5::has_attribute(file, a::kBuilds)) {
    out.builds = parse_builds(h5::read_string_attribute(file, a::kBuilds));
  }

  out.tasks = read_tasks(file);
  out.done = done != nullptr ? *done
                             : h5::read_all<std::uint8_t>(h5::open_dataset(
                                   h5::open_group(file, schema::kTasks), c::kDone));
  out.done.resize(out.tasks.size(), 0);
  std::unordered_set<std::uint32_t> done_ids;
  for (std::size_t i = 0; i < out.tasks.size(); ++i) {
    if (out.done[i] != 0) done_ids.insert(out.tasks[i].task_id);
  }

  out.ws = read_records(file, schema::kWs, ws_schema(), out.format_minor, done_ids, options.witness,
                        out.missing_columns);
  if (std::find(out.missing_columns.begin(), out.missing_columns.end(), "/ws/S_upper_scope") !=
      out.missing_columns.end()) {
    // Before format 1.2 only rf's full sampler had a bound, and it covered every position.
    for (auto& r : out.ws) r.S_upper_scope = std::isfinite(r.S_upper) ? 1 : 0;
  }
  std::stable_sort(out.ws.begin(), out.ws.end(),
                   [](const auto& x, const auto& y) { return x.task_id < y.task_id; });
  out.gen = read_records(file, schema::kGen, gen_schema(), out.format_minor, done_ids,
                         options.witness, out.missing_columns);
  std::stable_sort(out.gen.begin(), out.gen.end(), [](const auto& x, const auto& y) {
    return std::tie(x.task_id, x.training, x.objective) <
           std::tie(y.task_id, y.training, y.objective);
  });
  {
    const TableReader t(file, detail::table(schema::kWitness));
    const auto id = t.get<std::uint32_t>(c::kTaskId);
    for (std::size_t i = 0; i < t.rows(); ++i) out.array_count += done_ids.count(id[i]);
    if (options.witness) {
      const auto name = t.strings(c::kName);
      const auto position = t.get<std::int64_t>(c::kPosition);
      const auto rows = t.get<std::int64_t>(c::kRows);
      const auto cols = t.get<std::int64_t>(c::kCols);
      const auto offset = t.get<std::int64_t>(c::kOffset);
      const auto flat = t.values<double>(c::kValues);
      for (std::size_t i = 0; i < t.rows(); ++i) {
        if (done_ids.count(id[i]) == 0) continue;
        NamedArray array{id[i], name[i], position[i], Matrix(rows[i], cols[i])};
        const auto values = slice(flat, offset[i], rows[i] * cols[i]);
        std::copy(values.begin(), values.end(), array.values.data());
        out.arrays.push_back(std::move(array));
      }
      std::stable_sort(out.arrays.begin(), out.arrays.end(),
                       [](const auto& x, const auto& y) { return x.task_id < y.task_id; });
    }
  }
  return out;
}

}  // namespace detail

}  // namespace wordsens::io
