// The results-file layout: columns per table, creation, and checked opening.
#include "io/format/layout.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "io/files/file_kind.hpp"
#include "io/format/build_provenance.hpp"
#include "io/format/format_doc.hpp"
#include "io/format/format_minors.hpp"
#include "io/format/schema.hpp"
#include "io/format/stored_config.hpp"

namespace wordsens::io::detail {

namespace s = schema;
namespace c = schema::col;

namespace {

std::vector<Column> task_columns() {
  return {
      {c::kTaskId, Kind::u32, "id", "stable id of the task: its row, and its random-number entity"},
      {c::kPointId, Kind::u32, "id",
       "stable id of the grid point (experiment, model, n, d, k, L, H, m, N)"},
      {c::kExperiment, Kind::u8, "code", "0 ws, 1 gen"},
      {c::kModel, Kind::str, "name",
       "rf, drf, raf, raf_relu, raf_v, mhraf, block, trained_attn, twin_attn, trained_layer or "
       "twin_layer"},
      {c::kN, Kind::i64, "words", "n, words per text"},
      {c::kD, Kind::i64, "1", "d, embedding dimension"},
      {c::kK, Kind::i64, "features",
       "k, width of rf and drf, and of block's MLP (0 for the other attention models)"},
      {c::kNTrain, Kind::i64, "texts", "N, training-set size of gen (0 for ws)"},
      {c::kLayers, Kind::i64, "layers", "L, depth of drf (1 otherwise)"},
      {c::kHeads, Kind::i64, "heads", "H, attention heads of mhraf and block (1 otherwise)",
       s::kHeadsMinor},
      {c::kWords, Kind::i64, "words", "m, words changed at once (ws; 1 for gen)", 4},
      {c::kTrial, Kind::u32, "index", "trial within the grid point"},
      {c::kDone, Kind::u8, "flag", "1 once the task's rows are complete (the commit flag)"}};
}

// Last column of every record table (row_crc.hpp). It covers every value of the row, so it is
// not reproducible when one of them is not (the wall-clock seconds): comparisons of records bit
// for bit skip it, as they skip those.
Column row_crc_column(bool reproducible) {
  return {c::kRowCrc32, Kind::u32, "crc",
          std::string("zlib CRC-32 of the row's values (FORMAT.md, \"Row checksums\")") +
              (reproducible ? "" : "; not reproducible, as seconds is not"),
          s::kRowCrcMinor};
}

template <typename Record>
Table record_table(const char* group, const RecordSchema<Record>& schema,
                   std::vector<std::string> key, RowsPerTask rows, Experiment experiment) {
  Table table{group, {}, {}, true, std::move(key), rows, static_cast<int>(experiment)};
  for (const auto& field : schema.scalars) {
    table.columns.push_back(
        {field.name, kind_of(field.type()), field.unit, field.meaning, field.since_minor});
  }
  for (const auto& field : schema.ragged) {
    const std::string what = std::string("of ") + field.name + "_values";
    table.columns.push_back(
        {field.offset_column(), Kind::i64, "index", "first element " + what, field.since_minor});
    table.columns.push_back(
        {field.length_column(), Kind::i64, "count", "elements " + what, field.since_minor});
    table.flats.push_back({field.values_dataset(), kind_of(field.type()), field.offset_column(),
                           field.length_column(), field.unit, field.meaning, field.since_minor});
  }
  const bool reproducible = std::all_of(schema.scalars.begin(), schema.scalars.end(),
                                        [](const auto& field) { return field.reproducible; });
  table.columns.push_back(row_crc_column(reproducible));
  return table;
}

Table witness_table() {
  return {
      schema::kWitness,
      {{c::kTaskId, Kind::u32, "id", "the task (row of /tasks)"},
       {c::kName, Kind::name, "name", "delta, delta_words, X, W, V, V1, … (with --save-witness)"},
       {c::kPosition, Kind::i64, "position", "i* for delta, -1 otherwise"},
       {c::kRows, Kind::i64, "count", "rows of the array"},
       {c::kCols, Kind::i64, "count", "columns of the array"},
       {c::kOffset, Kind::i64, "index", "first element of the array in values"},
       row_crc_column(true)},
      {{c::kValues, Kind::f64, c::kOffset, "", "1", "the arrays, row-major, one after another"}},
      true,
      {c::kTaskId, c::kName},  // one array of each name per task
      RowsPerTask::any,
      -1};
}

std::vector<Column> point_columns() {
  auto all = task_columns();
  std::vector<Column> columns;
  for (const char* name : {c::kPointId, c::kModel, c::kN, c::kD, c::kK, c::kNTrain, c::kLayers,
                           c::kHeads, c::kWords}) {
    for (const auto& column : all) {
      if (column.name == name) columns.push_back(column);
    }
  }
  return columns;
}

void add_statistics(std::vector<Column>& columns, const std::string& quantity) {
  for (const char* statistic : c::kStatistics) {
    columns.push_back(
        {quantity + "_" + statistic, Kind::f64, "1",
         std::string(statistic) + " of " + quantity + " over the point's done tasks"});
  }
}

Table summary_ws_table() {
  Table table{schema::kSummaryWs, point_columns(), {}, false};
  table.columns.push_back({c::kCount, Kind::i64, "count", "done tasks of the grid point"});
  add_statistics(table.columns, c::kS);
  add_statistics(table.columns, c::kSUpper);
  return table;
}

Table summary_gen_table() {
  Table table{schema::kSummaryGen, point_columns(), {}, false};
  table.columns.push_back({c::kTraining, Kind::u8, "code", "0 finetune, 1 retrain"});
  table.columns.push_back({c::kObjective, Kind::u8, "code", "0 loss, 1 align"});
  table.columns.push_back(
      {c::kCount, Kind::i64, "count", "done tasks of the point with this training and objective"});
  add_statistics(table.columns, c::kE);
  add_statistics(table.columns, c::kD1);
  return table;
}

// The catalogue's traits of the models the tasks run (models/registry.cpp), so that a
// reader needs no list of its own of which model is attention, deep, ….
Table models_table() {
  const int since = s::kModelsMinor;
  Table table{s::kModels,
              {{c::kModel, Kind::str, "name", "a model the task table runs", since},
               {c::kAttention, Kind::u8, "flag",
                "1: attention (features n·d, no width k), 0: random features of width k", since},
               {c::kDeep, Kind::u8, "flag", "1: has a depth L (the layers grid)", since},
               {c::kMarginalSampler, Kind::u8, "flag",
                "1: its weights may be drawn by the marginal sampler (rf-sampling)", since},
               {c::kMinTotalSphereStarts, Kind::i64, "starts",
                "sphere ascents a ws search runs at least, in all (min-total-sphere-starts = "
                "auto)",
                since},
               {c::kMultiHead, Kind::u8, "flag", "1: several attention heads (the heads grid)",
                s::kAllTraitsMinor},
               {c::kWidth, Kind::u8, "code",
                "what its width k is: 0 none, 1 random features (the k grid), 2 its MLP's "
                "(the mlp-width grid)",
                s::kAllTraitsMinor},
               {c::kEncoder, Kind::u8, "flag",
                "1: a layer of a pretrained encoder (the encoder and encoder-layer keys)",
                s::kAllTraitsMinor}},
              {},
              false};
  table.since_minor = since;
  return table;
}

}  // namespace

Kind kind_of(FieldType type) {
  switch (type) {
    case FieldType::f64:
      return Kind::f64;
    case FieldType::i64:
      return Kind::i64;
    case FieldType::u32:
      return Kind::u32;
    case FieldType::u8:
      return Kind::u8;
  }
  throw std::logic_error("unknown field type");
}

const std::vector<Table>& tables() {
  // A ws task has one row; a gen task one per (training, objective).
  static const std::vector<Table> all = {
      {s::kTasks, task_columns(), {}, false},
      record_table(s::kWs, ws_schema(), {c::kTaskId}, RowsPerTask::exactly_one, Experiment::ws),
      record_table(s::kGen, gen_schema(), {c::kTaskId, c::kTraining, c::kObjective},
                   RowsPerTask::at_least_one, Experiment::gen),
      witness_table(),
      summary_ws_table(),
      summary_gen_table(),
      models_table()};
  return all;
}

const std::vector<std::pair<const char*, int>>& attribute_additions() {
  static const std::vector<std::pair<const char*, int>> added = {
      {s::attr::kBuild, 1},
      {s::attr::kInputFingerprints, 3},
      {s::attr::kTaskTableCrc32, s::kChecksumMinor},
      {s::attr::kBuilds, s::kChecksumMinor}};
  return added;
}

const Table& table(const char* group) {
  for (const auto& t : tables()) {
    if (std::string(t.group) == group) return t;
  }
  throw std::logic_error(std::string("no table ") + group);
}

namespace {

h5::Handle create_dataset(const h5::Handle& group, const std::string& name, Kind kind) {
  switch (kind) {
    case Kind::f64:
      return h5::create_column<double>(group, name);
    case Kind::i64:
      return h5::create_column<std::int64_t>(group, name);
    case Kind::u32:
      return h5::create_column<std::uint32_t>(group, name);
    case Kind::u8:
      return h5::create_column<std::uint8_t>(group, name);
    case Kind::str:
      return h5::create_string_column(group, name, s::kModelLength);
    case Kind::name:
      return h5::create_string_column(group, name, s::kNameLength);
  }
  throw std::logic_error("unknown column kind");
}

void describe(const h5::Handle& dataset, const std::string& unit, const std::string& meaning) {
  h5::write_attribute(dataset, s::attr::kUnit, unit);
  h5::write_attribute(dataset, s::attr::kMeaning, meaning);
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
  // The build whose records the file holds: this binary's, unless a merge names its inputs'.
  const BuildId build = provenance.build == BuildId{} ? this_build() : provenance.build;
  h5::write_attribute(file, a::kSoftwareVersion, build.software_version);
  h5::write_attribute(file, a::kGitSha, build.git_sha);
  h5::write_attribute(file, a::kBuild, build.build);
  h5::write_attribute(file, a::kCreatedUtc, utc_now());
  h5::write_attribute(file, a::kCommandLine, provenance.command_line);
  h5::write_attribute(file, a::kMpiRanks, static_cast<std::int64_t>(provenance.mpi_ranks));
  h5::write_attribute(file, a::kMasterSeed, static_cast<std::int64_t>(provenance.master_seed));
  h5::write_attribute(file, a::kConfigText, provenance.config_text);
  h5::write_attribute(file, a::kConfigHash, config_hash(provenance.config_text));
  h5::write_attribute(file, a::kSaveWitness, static_cast<std::int64_t>(provenance.save_witness));
  h5::write_attribute(file, a::kInputFingerprints, provenance.input_fingerprints);
  if (!merged_from.empty()) h5::write_attribute(file, a::kMergedFrom, merged_from);
  h5::write_attribute(file, a::kTaskTableCrc32,
                      static_cast<std::int64_t>(task_table_crc32(provenance.config_text, tasks)));
  if (!provenance.builds.empty()) {
    h5::write_attribute(file, a::kBuilds, format_builds(provenance.builds));
  }
  write_stored_config(file, provenance.config_text);

  // Every group and column exists from the start, even if empty: the file is then appended in
  // SWMR mode, which cannot create objects, and readers never meet a missing dataset.
  h5::create_group(file, s::kSummary);
  for (const auto& table : tables()) {
    const h5::Handle group = h5::create_group(file, table.group);
    for (const auto& column : table.columns) {
      describe(create_dataset(group, column.name, column.kind), column.unit, column.meaning);
    }
    for (const auto& flat : table.flats) {
      describe(create_dataset(group, flat.values, flat.kind), flat.unit, flat.meaning);
    }
  }

  const h5::Handle group = h5::open_group(file, s::kTasks);
  write_task_column<std::uint32_t>(group, c::kTaskId, tasks, [](auto& t) { return t.task_id; });
  write_task_column<std::uint32_t>(group, c::kPointId, tasks, [](auto& t) { return t.point_id; });
  write_task_column<std::uint8_t>(group, c::kExperiment, tasks,
                                  [](auto& t) { return t.experiment; });
  std::vector<std::string> models;
  for (const auto& task : tasks) models.push_back(to_string(task.model));
  h5::append_strings(h5::open_dataset(group, c::kModel), models);
  write_task_column<std::int64_t>(group, c::kN, tasks, [](auto& t) { return t.n; });
  write_task_column<std::int64_t>(group, c::kD, tasks, [](auto& t) { return t.d; });
  write_task_column<std::int64_t>(group, c::kK, tasks, [](auto& t) { return t.k; });
  write_task_column<std::int64_t>(group, c::kNTrain, tasks, [](auto& t) { return t.N; });
  write_task_column<std::int64_t>(group, c::kLayers, tasks, [](auto& t) { return t.layers; });
  write_task_column<std::int64_t>(group, c::kHeads, tasks, [](auto& t) { return t.heads; });
  write_task_column<std::int64_t>(group, c::kWords, tasks, [](auto& t) { return t.words; });
  write_task_column<std::uint32_t>(group, c::kTrial, tasks, [](auto& t) { return t.trial; });
  h5::append(h5::open_dataset(group, c::kDone), std::vector<std::uint8_t>(tasks.size(), 0));

  const h5::Handle catalogue = h5::open_group(file, s::kModels);
  std::vector<std::string> names;
  std::vector<std::uint8_t> attention, deep, marginal, multi_head, width, encoder;
  std::vector<std::int64_t> starts;
  for (const ModelKind kind : models_run_by(tasks)) {
    const ModelTraits& t = traits(kind);
    names.emplace_back(t.name);
    attention.push_back(t.attention ? 1 : 0);
    deep.push_back(t.deep ? 1 : 0);
    marginal.push_back(t.marginal_sampler ? 1 : 0);
    starts.push_back(t.min_total_sphere_starts);
    multi_head.push_back(t.multi_head ? 1 : 0);
    width.push_back(width_code(t.width));
    encoder.push_back(t.encoder ? 1 : 0);
  }
  h5::append_strings(h5::open_dataset(catalogue, c::kModel), names);
  h5::append(h5::open_dataset(catalogue, c::kAttention), attention);
  h5::append(h5::open_dataset(catalogue, c::kDeep), deep);
  h5::append(h5::open_dataset(catalogue, c::kMarginalSampler), marginal);
  h5::append(h5::open_dataset(catalogue, c::kMinTotalSphereStarts), starts);
  h5::append(h5::open_dataset(catalogue, c::kMultiHead), multi_head);
  h5::append(h5::open_dataset(catalogue, c::kWidth), width);
  h5::append(h5::open_dataset(catalogue, c::kEncoder), encoder);
}

std::uint8_t width_code(ModelWidth width) {
  switch (width) {
    case ModelWidth::none:
      return 0;
    case ModelWidth::features:
      return 1;
    case ModelWidth::mlp:
      return 2;
  }
  throw std::logic_error("unknown model width");
}

std::vector<ModelKind> models_run_by(const std::vector<TaskSpec>& tasks) {
  std::vector<bool> runs(all_models().size(), false);
  for (const TaskSpec& task : tasks) runs[static_cast<std::size_t>(task.model)] = true;
  std::vector<ModelKind> kinds;
  for (const ModelTraits& t : all_models()) {
    if (runs[static_cast<std::size_t>(t.kind)]) kinds.push_back(t.kind);
  }
  return kinds;
}

void require_regular_file(const std::string& path, const std::string& what) {
  const std::string problem = regular_file_problem(path);
  if (problem.empty()) return;
  if (problem == "does not exist") throw InputError("no such file: " + path);
  throw InputError(path + " " + problem + ", not a " + what);
}

DamagedFileError damaged_file(const std::string& path, const std::string& detail) {
  const bool truncated = detail.find("truncated file") != std::string::npos;
  return DamagedFileError(path + ": damaged or not a wordsens results file (" + detail +
                          (truncated ? "; cut short by a full disk or a file-size limit? "
                                       "resuming its run extends it"
                                     : "") +
                          ")");
}

bool extend_truncated(const std::string& path) {
  try {
    (void)h5::open_file(path, h5::Access::read);
    return false;
  } catch (const h5::Error& e) {
    const std::string& cause = e.cause();
    const auto at = cause.find("stored_eof = ");
    if (cause.find("truncated file") == std::string::npos || at == std::string::npos) return false;
    const unsigned long long stored = std::strtoull(cause.c_str() + at + 13, nullptr, 10);
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    if (error || stored <= size) return false;
    std::filesystem::resize_file(path, stored, error);
    return !error;
  }
}

std::vector<int> format_version(const h5::Handle& file) {
  return h5::read_int_array_attribute(file, schema::attr::kFormatVersion);
}

h5::Handle open_checked(const std::string& path, h5::Access access) {
  namespace a = schema::attr;
  require_regular_file(path, "wordsens results file");
  if (!h5::is_hdf5(path)) throw InputError(path + " is not a wordsens results file (not HDF5)");
  const auto damaged = [&](const std::string& detail) { return damaged_file(path, detail); };
  h5::Handle file;
  try {
    file = h5::open_file(path, access);
  } catch (const h5::Error& e) {
    // It has the HDF5 signature, but HDF5 cannot read its superblock or root group.
    throw damaged(std::string("HDF5 cannot open it: ") + e.what());
  }
  try {
    if (!h5::has_attribute(file, a::kFileType) ||
        h5::read_string_attribute(file, a::kFileType) != s::kFileType) {
      throw InputError(path + " is not a wordsens results file (no filetype '" +
                       std::string(s::kFileType) + "')");
    }
    const std::vector<int> version =
        h5::has_attribute(file, a::kFormatVersion) ? format_version(file) : std::vector<int>{};
    if (version.size() != 2) throw damaged("no valid format_version attribute");
    if (version[0] != s::kFormatMajor) {
      throw InputError(path + " has format version " + std::to_string(version[0]) + "." +
                       std::to_string(version[1]) + "; this wordsens reads major version " +
                       std::to_string(s::kFormatMajor) +
                       (version[0] > s::kFormatMajor ? " (upgrade wordsens)" : ""));
    }
  } catch (const h5::Error& e) {
    throw damaged(std::string("its root attributes cannot be read: ") + e.what());
  }
  return file;
}

namespace {

// H of a file written before /tasks/heads (format 1.8): its configuration's one `heads`, which
// canonical_text wrote whenever a multi-head model was in the study (4, the default of those
// versions, without one).
std::int64_t heads_of_config(const h5::Handle& file) {
  const auto entries = parse_config(h5::read_string_attribute(file, s::attr::kConfigText));
  const auto found = entries.find("heads");
  if (found == entries.end()) return 4;
  const std::string& value = found->second;
  char* stop = nullptr;
  const long long heads = std::strtoll(value.c_str(), &stop, 10);
  if (value.empty() || *stop != '\0' || heads < 1) {
    throw std::runtime_error("config_text's heads = '" + value + "' is not one H >= 1");
  }
  return heads;
}

}  // namespace

bool stores_mlp_width(const h5::Handle& file) {
  const std::vector<int> version = format_version(file);
  return version.size() != 2 || version[1] >= schema::kMlpWidthMinor;
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
  // The columns older minors lack are decoded (io/format/format_minors.hpp): words (1.4),
  // heads (1.8) and block's MLP width as its k (1.9).
  const auto words = h5::exists(group, c::kWords)
                         ? h5::read_all<std::int64_t>(h5::open_dataset(group, c::kWords))
                         : std::vector<std::int64_t>(rows, kWordsBefore_1_4);
  const bool heads_stored = h5::exists(group, c::kHeads);
  const auto heads = heads_stored ? h5::read_all<std::int64_t>(h5::open_dataset(group, c::kHeads))
                                  : std::vector<std::int64_t>(rows, 1);
  const std::int64_t config_heads = heads_stored ? 1 : heads_of_config(file);
  const bool mlp_width_stored = stores_mlp_width(file);
  for (std::size_t size :
       {points.size(), experiments.size(), models.size(), n.size(), d.size(), k.size(), N.size(),
        layers.size(), heads.size(), trials.size(), words.size()}) {
    if (size != rows) throw std::runtime_error("the task table's columns differ in length");
  }
  std::vector<TaskSpec> tasks(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    TaskSpec& t = tasks[i];
    t.task_id = ids[i];
    t.point_id = points[i];
    if (experiments[i] > 1) throw std::runtime_error("unknown experiment code in /tasks");
    t.experiment = static_cast<Experiment>(experiments[i]);
    // A name this wordsens does not know is damage (or a newer writer's model): the file's
    // checks list it like any other unreadable row.
    const auto kind = find_model(models[i]);
    if (!kind) {
      throw std::runtime_error("/tasks row " + std::to_string(i) + " names an unknown model '" +
                               models[i] + "'");
    }
    t.model = *kind;
    t.n = n[i];
    t.d = d[i];
    t.k = mlp_width_stored ? k[i] : k_before_1_9(t.model, k[i], d[i]);
    t.N = N[i];
    t.layers = static_cast<int>(layers[i]);
    t.heads = static_cast<int>(heads_stored ? heads[i] : heads_before_1_8(t.model, config_heads));
    t.words = words[i];
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

namespace wordsens::io {

namespace {
const char* kind_name(detail::Kind kind) {
  switch (kind) {
    case detail::Kind::f64:
      return "float64";
    case detail::Kind::i64:
      return "int64";
    case detail::Kind::u32:
      return "uint32";
    case detail::Kind::u8:
      return "uint8";
    case detail::Kind::str:
      return "S16";
    case detail::Kind::name:
      return "S32";
  }
  return "?";
}
}  // namespace

std::vector<std::pair<std::string, int>> format_additions() {
  std::vector<std::pair<std::string, int>> added;
  for (const detail::Table& table : detail::tables()) {
    const std::string group = std::string(table.group).substr(1);
    if (table.since_minor > 0) {
      added.emplace_back(group, table.since_minor);
      continue;
    }
    for (const auto& column : table.columns) {
      if (column.since_minor > 0) added.emplace_back(group + "/" + column.name, column.since_minor);
    }
    for (const auto& flat : table.flats) {
      if (flat.since_minor > 0) added.emplace_back(group + "/" + flat.values, flat.since_minor);
    }
  }
  // A group of attributes, no table.
  added.emplace_back(std::string(schema::kConfig).substr(1), schema::kConfigMinor);
  for (const auto& [name, since] : detail::attribute_additions()) {
    added.emplace_back(std::string("@") + name, since);
  }
  return added;
}

std::string column_table_markdown(const std::string& group) {
  const detail::Table& table = detail::table(group.c_str());
  std::string text = "| column | dtype | unit | meaning |\n|---|---|---|---|\n";
  for (const auto& column : table.columns) {
    text += "| `" + column.name + "` | " + kind_name(column.kind) + " | " + column.unit + " | " +
            column.meaning + " |\n";
  }
  for (const auto& flat : table.flats) {
    const std::string length = flat.length.empty() ? "rows[r]·cols[r]" : flat.length + "[r]";
    text += "| `" + flat.values + "` | " + kind_name(flat.kind) + ", flat | " + flat.unit + " | " +
            flat.meaning + "; row r: `" + flat.values + "[" + flat.offset + "[r] : " + flat.offset +
            "[r] + " + length + "]` |\n";
  }
  return text;
}

}  // namespace wordsens::io
