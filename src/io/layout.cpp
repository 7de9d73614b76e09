// The results-file layout: columns per table, creation, and checked opening.
#include "io/layout.hpp"

#include <cstdio>
#include <ctime>
#include <filesystem>

#include "io/schema.hpp"
#include "wordsens/version.hpp"

namespace wordsens::io::detail {

namespace s = schema;
namespace c = schema::col;

const std::vector<Column>& task_columns() {
  static const std::vector<Column> columns = {
      {c::kTaskId, Kind::u32}, {c::kPointId, Kind::u32}, {c::kExperiment, Kind::u8},
      {c::kModel, Kind::str},  {c::kN, Kind::i64},       {c::kD, Kind::i64},
      {c::kK, Kind::i64},      {c::kNTrain, Kind::i64},  {c::kLayers, Kind::i64},
      {c::kTrial, Kind::u32},  {c::kDone, Kind::u8}};
  return columns;
}

const std::vector<Column>& ws_columns() {
  static const std::vector<Column> columns = {
      {c::kTaskId, Kind::u32},       {c::kS, Kind::f64},
      {c::kSUpper, Kind::f64},       {c::kArgmaxPosition, Kind::i64},
      {c::kPhiNorm, Kind::f64},      {c::kEvaluations, Kind::i64},
      {c::kSeconds, Kind::f64},      {c::kWitnessOffset, Kind::i64},
      {c::kWitnessLength, Kind::i64}};
  return columns;
}

const std::vector<Column>& gen_columns() {
  static const std::vector<Column> columns = {{c::kTaskId, Kind::u32},
                                              {c::kTraining, Kind::u8},
                                              {c::kObjective, Kind::u8},
                                              {c::kT0, Kind::f64},
                                              {c::kT1, Kind::f64},
                                              {c::kD0, Kind::f64},
                                              {c::kD1, Kind::f64},
                                              {c::kE, Kind::f64},
                                              {c::kCondK, Kind::f64},
                                              {c::kPosition, Kind::i64},
                                              {c::kEvaluations, Kind::i64},
                                              {c::kSeconds, Kind::f64},
                                              {c::kWitnessOffset, Kind::i64},
                                              {c::kWitnessLength, Kind::i64}};
  return columns;
}

const std::vector<Column>& witness_columns() {
  static const std::vector<Column> columns = {{c::kTaskId, Kind::u32},   {c::kName, Kind::name},
                                              {c::kPosition, Kind::i64}, {c::kRows, Kind::i64},
                                              {c::kCols, Kind::i64},     {c::kOffset, Kind::i64}};
  return columns;
}

namespace {
std::vector<Column> point_columns() {
  return {{c::kPointId, Kind::u32}, {c::kModel, Kind::str}, {c::kN, Kind::i64},
          {c::kD, Kind::i64},       {c::kK, Kind::i64},     {c::kNTrain, Kind::i64},
          {c::kLayers, Kind::i64}};
}
void add_statistics(std::vector<Column>& columns, const std::string& quantity) {
  for (const char* statistic : c::kStatistics) {
    columns.push_back({quantity + "_" + statistic, Kind::f64});
  }
}
}  // namespace

const std::vector<Column>& summary_ws_columns() {
  static const std::vector<Column> columns = [] {
    std::vector<Column> result = point_columns();
    result.push_back({c::kCount, Kind::i64});
    add_statistics(result, c::kS);
    add_statistics(result, c::kSUpper);
    return result;
  }();
  return columns;
}

const std::vector<Column>& summary_gen_columns() {
  static const std::vector<Column> columns = [] {
    std::vector<Column> result = point_columns();
    result.push_back({c::kTraining, Kind::u8});
    result.push_back({c::kObjective, Kind::u8});
    result.push_back({c::kCount, Kind::i64});
    add_statistics(result, c::kE);
    add_statistics(result, c::kD1);
    return result;
  }();
  return columns;
}

const std::vector<Table>& tables() {
  static const std::vector<Table> all = {{s::kTasks, task_columns, ""},
                                         {s::kWs, ws_columns, c::kWitnessValues},
                                         {s::kGen, gen_columns, c::kWitnessValues},
                                         {s::kWitness, witness_columns, c::kValues},
                                         {s::kSummaryWs, summary_ws_columns, ""},
                                         {s::kSummaryGen, summary_gen_columns, ""}};
  return all;
}

namespace {

void create_column(const h5::Handle& group, const Column& column) {
  switch (column.kind) {
    case Kind::f64:
      h5::create_column<double>(group, column.name, s::kChunkRows);
      break;
    case Kind::i64:
      h5::create_column<std::int64_t>(group, column.name, s::kChunkRows);
      break;
    case Kind::u32:
      h5::create_column<std::uint32_t>(group, column.name, s::kChunkRows);
      break;
    case Kind::u8:
      h5::create_column<std::uint8_t>(group, column.name, s::kChunkRows);
      break;
    case Kind::str:
      h5::create_string_column(group, column.name, s::kModelLength);
      break;
    case Kind::name:
      h5::create_string_column(group, column.name, s::kNameLength);
      break;
  }
}

template <typename T, typename F>
void write_task_column(const h5::Handle& group, const char* name,
                       const std::vector<TaskSpec>& tasks, F field) {
  std::vector<T> values;
  values.reserve(tasks.size());
  for (const auto& task : tasks) values.push_back(static_cast<T>(field(task)));
  h5::append(h5::open_dataset(group, name), values);
}

}  // namespace

void write_layout(const h5::Handle& file, const RunProvenance& provenance,
                  const std::vector<TaskSpec>& tasks, const std::vector<std::string>& merged_from) {
  namespace a = schema::attr;
  h5::write_attribute(file, a::kFileType, std::string(s::kFileType));
  h5::write_attribute(file, a::kFormatVersion, std::vector<int>{s::kFormatMajor, s::kFormatMinor});
  h5::write_attribute(file, a::kSoftwareVersion, std::string(version::software));
  h5::write_attribute(file, a::kGitSha, std::string(version::git_sha));
  h5::write_attribute(file, a::kBuild, std::string(version::build));
  h5::write_attribute(file, a::kCreatedUtc, utc_now());
  h5::write_attribute(file, a::kCommandLine, provenance.command_line);
  h5::write_attribute(file, a::kMpiRanks, static_cast<std::int64_t>(provenance.mpi_ranks));
  h5::write_attribute(file, a::kMasterSeed, static_cast<std::int64_t>(provenance.master_seed));
  h5::write_attribute(file, a::kConfigText, provenance.config_text);
  h5::write_attribute(file, a::kConfigHash, config_hash(provenance.config_text));
  h5::write_attribute(file, a::kSaveWitness, static_cast<std::int64_t>(provenance.save_witness));
  if (!merged_from.empty()) h5::write_attribute(file, a::kMergedFrom, merged_from);

  // Every group and column exists from the start, even if empty: the file is then appended in
  // SWMR mode, which cannot create objects, and readers never meet a missing dataset.
  h5::create_group(file, s::kSummary);
  for (const auto& table : tables()) {
    const h5::Handle group = h5::create_group(file, table.group);
    for (const auto& column : table.columns()) create_column(group, column);
    if (table.values[0] != '\0') h5::create_column<double>(group, table.values, s::kValuesChunk);
  }

  const h5::Handle group = h5::open_group(file, s::kTasks);
  write_task_column<std::uint32_t>(group, c::kTaskId, tasks, [](auto& t) { return t.task_id; });
  write_task_column<std::uint32_t>(group, c::kPointId, tasks, [](auto& t) { return t.point_id; });
  write_task_column<std::uint8_t>(group, c::kExperiment, tasks,
                                  [](auto& t) { return t.experiment; });
  std::vector<std::string> models;
  for (const auto& task : tasks) models.push_back(task.model);
  h5::append_strings(h5::open_dataset(group, c::kModel), models);
  write_task_column<std::int64_t>(group, c::kN, tasks, [](auto& t) { return t.n; });
  write_task_column<std::int64_t>(group, c::kD, tasks, [](auto& t) { return t.d; });
  write_task_column<std::int64_t>(group, c::kK, tasks, [](auto& t) { return t.k; });
  write_task_column<std::int64_t>(group, c::kNTrain, tasks, [](auto& t) { return t.N; });
  write_task_column<std::int64_t>(group, c::kLayers, tasks, [](auto& t) { return t.layers; });
  write_task_column<std::uint32_t>(group, c::kTrial, tasks, [](auto& t) { return t.trial; });
  h5::append(h5::open_dataset(group, c::kDone), std::vector<std::uint8_t>(tasks.size(), 0));
}

h5::Handle open_checked(const std::string& path, h5::Access access) {
  namespace a = schema::attr;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw InputError("no such file: " + path);
  if (!h5::is_hdf5(path)) throw InputError(path + " is not a wordsens results file (not HDF5)");
  h5::Handle file;
  try {
    file = h5::open_file(path, access);
  } catch (const std::runtime_error& e) {
    throw InputError("cannot open " + path + ": " + e.what());
  }
  if (!h5::has_attribute(file, a::kFileType) ||
      h5::read_string_attribute(file, a::kFileType) != s::kFileType) {
    throw InputError(path + " is not a wordsens results file (no filetype '" +
                     std::string(s::kFileType) + "')");
  }
  const std::vector<int> version = h5::has_attribute(file, a::kFormatVersion)
                                       ? h5::read_int_array_attribute(file, a::kFormatVersion)
                                       : std::vector<int>{};
  if (version.size() != 2) throw InputError(path + " has no valid format_version attribute");
  if (version[0] != s::kFormatMajor) {
    throw InputError(path + " has format version " + std::to_string(version[0]) + "." +
                     std::to_string(version[1]) + "; this wordsens reads major version " +
                     std::to_string(s::kFormatMajor) +
                     (version[0] > s::kFormatMajor ? " (upgrade wordsens)" : ""));
  }
  return file;
}

std::vector<TaskSpec> read_tasks(const h5::Handle& file) {
  const h5::Handle group = h5::open_group(file, s::kTasks);
  const auto ids = h5::read_all<std::uint32_t>(h5::open_dataset(group, c::kTaskId));
  const auto points = h5::read_all<std::uint32_t>(h5::open_dataset(group, c::kPointId));
  const auto experiments = h5::read_all<std::uint8_t>(h5::open_dataset(group, c::kExperiment));
  const auto models = h5::read_strings(h5::open_dataset(group, c::kModel));
  const auto n = h5::read_all<std::int64_t>(h5::open_dataset(group, c::kN));
  const auto d = h5::read_all<std::int64_t>(h5::open_dataset(group, c::kD));
  const auto k = h5::read_all<std::int64_t>(h5::open_dataset(group, c::kK));
  const auto N = h5::read_all<std::int64_t>(h5::open_dataset(group, c::kNTrain));
  const auto layers = h5::read_all<std::int64_t>(h5::open_dataset(group, c::kLayers));
  const auto trials = h5::read_all<std::uint32_t>(h5::open_dataset(group, c::kTrial));
  const std::size_t rows = ids.size();
  for (std::size_t size : {points.size(), experiments.size(), models.size(), n.size(), d.size(),
                           k.size(), N.size(), layers.size(), trials.size()}) {
    if (size != rows) throw std::runtime_error("the task table's columns differ in length");
  }
  std::vector<TaskSpec> tasks(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    TaskSpec& t = tasks[i];
    t.task_id = ids[i];
    t.point_id = points[i];
    if (experiments[i] > 1) throw std::runtime_error("unknown experiment code in /tasks");
    t.experiment = static_cast<Experiment>(experiments[i]);
    t.model = models[i];
    t.n = n[i];
    t.d = d[i];
    t.k = k[i];
    t.N = N[i];
    t.layers = static_cast<int>(layers[i]);
    t.trial = trials[i];
  }
  return tasks;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string config_hash(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a 64 offset basis
  for (const unsigned char byte : text) {
    hash ^= byte;
    hash *= 1099511628211ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string result;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) result += separator;
    result += parts[i];
  }
  return result;
}

}  // namespace wordsens::io::detail
