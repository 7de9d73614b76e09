// ResultsFile: creation, resume and crash-safe appends (the write side, rank 0 only).
#include "io/results_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <filesystem>
#include <map>
#include <unordered_map>
#include <variant>

#include "io/files/file_lock.hpp"
#include "io/format/build_provenance.hpp"
#include "io/format/contents.hpp"
#include "io/format/layout.hpp"
#include "io/format/row_crc.hpp"
#include "io/format/schema.hpp"
#include "io/h5/h5.hpp"
#include "io/integrity/integrity.hpp"
#include "io/more_trials.hpp"
#include "io/output_path.hpp"

namespace wordsens::io {

namespace c = schema::col;
namespace fs = std::filesystem;

// A row checksum covers the values as the file stores them, little-endian; the writer takes
// them from memory.
static_assert(std::endian::native == std::endian::little, "row checksums need little-endian");

struct ResultsFile::Impl {
  std::string path;
  WriterLock writer;  // held from before the file was created or opened until it is closed
  FileLock lock;
  // A file not yet renamed onto `path` (merge builds it first): its name, removed on failure.
  std::string temporary;
  bool replace = false;  // publish() may replace an existing `path` (--overwrite)
  h5::Handle file;
  std::map<std::string, h5::Handle> datasets;  // by absolute path, e.g. "/ws/S"
  std::vector<TaskSpec> tasks;
  std::vector<std::uint8_t> done;
  std::unordered_map<std::uint32_t, std::size_t> row_of;  // task id → row of /tasks
  bool save_witness = false;
  bool sync = true;     // flush around each record (merge turns it off while it builds a file)
  bool broken = false;  // an append failed half-way: refuse further writes
  // The row being appended: the stored bytes of each of its elements (by column or flat array
  // name), from which its row checksum is computed; and the plan of each record table's checksum
  // (none for a table without row_crc32: a file of format 1.5 resumed).
  mutable std::map<std::string, std::string> row_bytes;
  std::map<std::string, detail::RowCrcPlan> crc_plans;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    if (temporary.empty()) return;
    datasets.clear();
    file.reset();
    std::error_code error;
    fs::remove(temporary, error);  // never published: a failed merge leaves no output
  }

  // Runs a write; a failure marks the file broken (no further writes) and becomes one line that
  // names the file and the system error ("cannot write r.h5: H5Dwrite failed for
  // r.h5:/ws/S: No space left on device").
  template <typename F>
  void guarded(F&& write) {
    try {
      write();
    } catch (const h5::Error& e) {
      broken = true;
      throw std::runtime_error("cannot write " + path + ": " + e.what());
    } catch (...) {
      broken = true;
      throw;
    }
  }

  // The file being written, by the name it has now.
  const std::string& current_name() const { return temporary.empty() ? path : temporary; }

  const h5::Handle& dataset(const char* group, const std::string& name) const {
    const auto found = datasets.find(std::string(group) + "/" + name);
    if (found == datasets.end()) throw std::logic_error("unknown dataset " + name);
    return found->second;
  }
  template <typename T>
  void add(const char* group, const std::string& name, T value) const {
    h5::append(dataset(group, name), std::vector<T>{value});
    row_bytes[name].assign(reinterpret_cast<const char*>(&value), sizeof value);
  }
  template <typename T>
  void add_flat(const char* group, const std::string& name, const std::vector<T>& values) const {
    if (!values.empty()) h5::append(dataset(group, name), values);
    row_bytes[name].assign(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  void add_name(const char* group, const std::string& name, const std::string& value) const {
    h5::append_strings(dataset(group, name), {value});
    std::string stored = value;
    stored.resize(schema::kNameLength, '\0');  // fixed length, NUL padded
    row_bytes[name] = stored;
  }
  // Ends the row: its checksum from the bytes its elements were appended with.
  void add_row_crc(const char* group) const {
    const auto plan = crc_plans.find(group);
    if (plan == crc_plans.end()) return;
    const std::uint32_t crc = detail::row_crc32(
        plan->second,
        [&](const std::string& name) -> std::string_view { return row_bytes.at(name); },
        [&](const detail::FlatArray& flat) -> std::string_view {
          return row_bytes.at(flat.values);
        });
    add(group, c::kRowCrc32, crc);
    row_bytes.clear();
  }

  void open_all() {
    crc_plans.clear();
    for (const auto& table : detail::tables()) {
      // A table newer than the file (a resumed older file): its rows are never written.
      if (table.since_minor > 0 && !h5::exists(file, table.group)) continue;
      std::vector<std::string> names;
      const h5::Handle group = h5::open_group(file, table.group);
      for (const auto& column : table.columns) {
        // A column newer than a resumed older file (/tasks/heads and the summaries' in a 1.7
        // file): the task table is never appended to, and the summaries skip it. A column the
        // file's own version has is never missing here (require_consistent ran first).
        if (column.since_minor > 0 && !h5::exists(group, column.name)) continue;
        names.push_back(column.name);
      }
      for (const auto& flat : table.flats) names.push_back(flat.values);
      for (const auto& name : names) {
        const std::string key = std::string(table.group) + "/" + name;
        // A file of format 1.5 (resumable) has no row checksums: its rows get none.
        if (name == c::kRowCrc32 && !h5::exists(file, key)) continue;
        datasets.emplace(key, h5::open_dataset(file, key));
        if (name == c::kRowCrc32) crc_plans.emplace(table.group, detail::row_crc_plan(table));
      }
    }
    tasks = detail::read_tasks(file);
    done = h5::read_all<std::uint8_t>(dataset(schema::kTasks, c::kDone));
    if (done.size() != tasks.size()) throw detail::damaged_file(path, "/tasks/done is cut short");
    row_of.clear();
    for (std::size_t i = 0; i < tasks.size(); ++i) row_of.emplace(tasks[i].task_id, i);
    save_witness = h5::read_int_attribute(file, schema::attr::kSaveWitness) != 0;
  }

  void require_usable() const {
    h5::silence_errors();  // this thread may not be the one that opened the file
    if (!file.valid()) throw std::logic_error("results file " + path + " is closed");
    if (broken) throw std::runtime_error("an earlier write to " + path + " failed");
  }

  std::size_t row_for(std::uint32_t task_id, Experiment experiment) const {
    const auto found = row_of.find(task_id);
    if (found == row_of.end()) {
      throw std::invalid_argument("task " + std::to_string(task_id) + " is not in " + path);
    }
    if (tasks[found->second].experiment != experiment) {
      throw std::invalid_argument("task " + std::to_string(task_id) + " is not a " +
                                  to_string(experiment) + " task");
    }
    if (done[found->second] != 0) {
      throw std::invalid_argument("task " + std::to_string(task_id) + " is already done");
    }
    return found->second;
  }

  // Appends one record's row: its ragged values to their flat arrays first (witnesses only
  // when the file stores them), then every row column, as the record schema lists them.
  template <typename Record>
  void add_record(const char* group, const RecordSchema<Record>& schema,
                  const Record& record) const {
    row_bytes.clear();
    for (const auto& field : schema.ragged) {
      std::visit(
          [&](auto member) {
            const auto& values = record.*member;
            const auto offset =
                static_cast<std::int64_t>(h5::length(dataset(group, field.values_dataset())));
            const bool stored = save_witness || !field.witness_only;
            using Values = std::decay_t<decltype(values)>;
            add_flat(group, field.values_dataset(), stored ? values : Values{});
            add(group, field.offset_column(), offset);
            add(group, field.length_column(),
                static_cast<std::int64_t>(stored ? values.size() : 0));
          },
          field.member);
    }
    for (const auto& field : schema.scalars) {
      std::visit([&](auto member) { add(group, field.name, record.*member); }, field.member);
    }
    add_row_crc(group);
  }

  // The commit point of a task: its rows are on disk before its done flag is.
  void commit(std::size_t row) {
    if (sync) h5::flush(file);
    h5::write_at(dataset(schema::kTasks, c::kDone), row, std::vector<std::uint8_t>{1});
    done[row] = 1;
    if (sync) h5::flush(file);
  }

  bool task_done(std::uint32_t task_id) const {
    const auto found = row_of.find(task_id);
    return found != row_of.end() && done[found->second] != 0;
  }

  // Drops the rows a killed writer left after the last committed task of each table. Rows are
  // appended task by task and each task is committed before the next begins, so uncommitted
  // rows can only be at the tail.
  void truncate_orphans() {
    for (const auto& table : detail::tables()) {
      if (!table.records) continue;
      std::uint64_t rows = UINT64_MAX;
      for (const auto& column : table.columns) {
        rows = std::min(rows, h5::length(dataset(table.group, column.name)));
      }
      const auto ids = h5::read_range<std::uint32_t>(dataset(table.group, c::kTaskId), 0, rows);
      std::uint64_t keep = rows;
      while (keep > 0 && !task_done(ids[keep - 1])) --keep;
      for (const auto& column : table.columns) {
        const h5::Handle& ds = dataset(table.group, column.name);
        if (h5::length(ds) != keep) h5::set_length(ds, keep);
      }
      // Each flat array ends where the last kept row's values end.
      for (const auto& flat : table.flats) {
        std::int64_t end = 0;
        if (keep > 0) {
          const auto read = [&](const std::string& name) {
            return h5::read_range<std::int64_t>(dataset(table.group, name), keep - 1, 1)[0];
          };
          end = read(flat.offset) +
                (flat.length.empty() ? read(c::kRows) * read(c::kCols) : read(flat.length));
        }
        const h5::Handle& values = dataset(table.group, flat.values);
        if (h5::length(values) != static_cast<std::uint64_t>(end)) {
          h5::set_length(values, static_cast<std::uint64_t>(end));
        }
      }
    }
    h5::flush(file);
  }
};

ResultsFile::ResultsFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ResultsFile::ResultsFile(ResultsFile&&) noexcept = default;
ResultsFile& ResultsFile::operator=(ResultsFile&& other) noexcept {
  if (this != &other) {
    try {
      close();
    } catch (...) {  // NOLINT(bugprone-empty-catch): noexcept; closing is best effort here
    }
    impl_ = std::move(other.impl_);
  }
  return *this;
}
ResultsFile::~ResultsFile() {
  try {
    close();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
  }
}

namespace {

void check_tasks(const std::vector<TaskSpec>& tasks) {
  std::vector<std::uint32_t> ids;
  ids.reserve(tasks.size());
  for (const auto& task : tasks) {
    if (const std::string name = to_string(task.model); name.size() > schema::kModelLength) {
      throw std::invalid_argument("model name '" + name + "' is longer than " +
                                  std::to_string(schema::kModelLength) + " bytes");
    }
    ids.push_back(task.task_id);
  }
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) {
    throw std::invalid_argument("duplicated task ids in the task table");
  }
}

}  // namespace

ResultsFile ResultsFile::create(const std::string& path, const RunProvenance& provenance,
                                const std::vector<TaskSpec>& tasks, bool overwrite) {
  return create_file(path, provenance, tasks, overwrite, {}, true);
}

namespace {

// "cannot create X: <system error>", as bad input (exit 2) when the cause is the path or its
// permissions, as an I/O failure otherwise (a full disk).
[[noreturn]] void creation_failed(const std::string& path, const h5::Error& e) {
  const int error = e.system_error();
  const std::string cause = e.cause().empty() ? e.what() : e.cause();
  if (error == EACCES || error == EPERM || error == EROFS || error == ENOENT || error == ENOTDIR ||
      error == ENAMETOOLONG || error == EISDIR) {
    throw InputError("cannot create " + path + ": " + cause);
  }
  throw std::runtime_error("cannot create " + path + ": " + e.what());
}

}  // namespace

ResultsFile ResultsFile::create_file(const std::string& output, const RunProvenance& provenance,
                                     const std::vector<TaskSpec>& tasks, bool overwrite,
                                     const std::vector<std::string>& merged_from,
                                     bool publish_now) {
  check_tasks(tasks);
  detail::check_output_path(output);
  // Through a symbolic link: the linked file is what gets replaced (the link stays).
  const std::string path = detail::replaced_file(output);
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->replace = overwrite;
  // Every later step runs under the writer lock: a second writer of `path` stops here.
  impl->writer = WriterLock::acquire(path);
  detail::remove_stale_temporaries(path);
  std::error_code error;
  if (fs::exists(fs::symlink_status(path, error))) {
    if (!overwrite) {
      throw InputError(path + " already exists (use --overwrite to replace it)");
    }
    detail::check_replaceable(path);
  }
  // Build the whole layout under a temporary name, then rename: an existing file is replaced
  // only by a complete new one, and never touched when anything fails before.
  impl->temporary = detail::temporary_path(path);
  try {
    h5::Handle file = h5::create_file(impl->temporary);
    impl->lock = FileLock(impl->temporary);  // marks it live; follows the file through the rename
    detail::write_layout(file, provenance, tasks, merged_from);
    h5::flush(file);
    file.close(impl->temporary);
  } catch (const h5::Error& e) {
    creation_failed(path, e);
  }
  if (publish_now) {
    detail::publish(impl->temporary, path, overwrite);
    impl->temporary.clear();
  }
  try {
    impl->file = h5::open_file(impl->current_name(), h5::Access::swmr_write);
    impl->open_all();
  } catch (const h5::Error& e) {
    throw std::runtime_error("cannot open " + path + " for writing: " + e.what());
  }
  return ResultsFile(std::move(impl));
}

void ResultsFile::publish() {
  Impl& m = *impl_;
  if (m.temporary.empty()) return;
  close();
  detail::publish(m.temporary, m.path, m.replace);
  m.temporary.clear();
  m.writer.release();
}

namespace {

// Resume adds records to the file's own: a build other than the one that computed them (root
// attributes) is refused, so that a file never holds records of two builds unrecorded.
void require_same_build(const std::string& path, const h5::Handle& file) {
  namespace a = schema::attr;
  BuildId stored;
  try {
    stored = {h5::read_string_attribute(file, a::kSoftwareVersion),
              h5::read_string_attribute(file, a::kGitSha),
              h5::has_attribute(file, a::kBuild) ? h5::read_string_attribute(file, a::kBuild) : ""};
  } catch (const h5::Error& e) {
    throw detail::damaged_file(path, std::string("its build cannot be read: ") + e.what());
  }
  const auto differences = build_differences(stored, this_build());
  if (differences.empty()) return;
  throw InputError(path + " holds records of another build (" + detail::join(differences, "; ") +
                   "), which this one need not reproduce to the last bit: resume it with " +
                   describe(stored) + ", or start over with --overwrite");
}

}  // namespace

ResultsFile ResultsFile::open_for_resume(const std::string& path, const std::string& config_text,
                                         const std::string& input_fingerprints) {
  detail::check_output_path(path);
  detail::require_regular_file(path, "results file");
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  // The lock first: the checks below must not race a live writer of the same file.
  impl->writer = WriterLock::acquire(path);
  detail::remove_stale_temporaries(path);
  if (h5::is_hdf5(path)) detail::extend_truncated(path);
  {
    const h5::Handle file = detail::open_checked(path, h5::Access::read);
    const auto version = detail::format_version(file);
    // Integrity first: a damaged file is reported as damaged, not as another configuration, nor
    // (a newer file relabelled as an older one) as a file of an older format.
    try {
      detail::require_consistent(path, detail::diagnose(file));
    } catch (const h5::Error& e) {
      throw detail::damaged_file(path, e.what());
    }
    if (version.at(1) < schema::kResumeMinor) {
      // Its tables lack the columns this version appends; reading, merging and reporting work.
      throw InputError(path + " was written in format " + std::to_string(version[0]) + "." +
                       std::to_string(version[1]) + " by an older wordsens and cannot be " +
                       "resumed by this one (format " + std::to_string(schema::kFormatMajor) + "." +
                       std::to_string(schema::kFormatMinor) +
                       "); finish it with the version that created it, or start over with "
                       "--overwrite");
    }
    std::string stored;
    try {
      stored = h5::read_string_attribute(file, schema::attr::kConfigText);
    } catch (const h5::Error& e) {
      throw detail::damaged_file(path,
                                 std::string("its configuration cannot be read: ") + e.what());
    }
    const auto keys = differing_config_keys(stored, config_text);
    if (!keys.empty()) {
      throw InputError(path + " holds a run of a different configuration (differing keys: " +
                       detail::join(keys, ", ") +
                       "); use --overwrite to replace it or choose another output" +
                       more_trials_advice(path, stored, config_text));
    }
    require_same_build(path, file);
    const bool recorded = h5::has_attribute(file, schema::attr::kInputFingerprints);
    if (!recorded && !input_fingerprints.empty()) {
      throw InputError(path +
                       " records no fingerprint of its input files (written by an older "
                       "wordsens), so a changed input cannot be detected; start over with "
                       "--overwrite");
    }
    if (recorded) {
      const auto changed = differing_inputs(
          h5::read_string_attribute(file, schema::attr::kInputFingerprints), input_fingerprints);
      if (!changed.empty()) {
        throw InputError(path +
                         " was computed from other input data: " + detail::join(changed, "; ") +
                         "; restore the input, or start over with --overwrite");
      }
    }
  }
  impl->lock = FileLock(path);
  try {
    // Clears the "open for write" flags a killed writer left: safe, since the lock is ours.
    impl->file = h5::open_file(path, h5::Access::swmr_write);
    impl->open_all();
    impl->truncate_orphans();
  } catch (const h5::Error& e) {
    throw std::runtime_error("cannot resume " + path + ": " + e.what());
  }
  return ResultsFile(std::move(impl));
}

const std::vector<TaskSpec>& ResultsFile::tasks() const { return impl_->tasks; }

std::vector<std::uint32_t> ResultsFile::done_task_ids() const {
  std::vector<std::uint32_t> ids;
  for (std::size_t i = 0; i < impl_->tasks.size(); ++i) {
    if (impl_->done[i] != 0) ids.push_back(impl_->tasks[i].task_id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

bool ResultsFile::is_done(std::uint32_t task_id) const { return impl_->task_done(task_id); }
bool ResultsFile::save_witness() const { return impl_->save_witness; }
const std::string& ResultsFile::path() const { return impl_->path; }
bool ResultsFile::broken() const { return impl_->broken; }

void ResultsFile::append(const WsRecord& record) {
  Impl& m = *impl_;
  m.require_usable();
  const std::size_t row = m.row_for(record.task_id, Experiment::ws);
  m.guarded([&] {
    m.add_record(schema::kWs, ws_schema(), record);
    m.commit(row);
  });
}

void ResultsFile::append(const std::vector<GenRecord>& records) {
  Impl& m = *impl_;
  m.require_usable();
  if (records.empty()) throw std::invalid_argument("a gen task needs at least one record");
  for (const auto& record : records) {
    if (record.task_id != records.front().task_id) {
      throw std::invalid_argument("gen records of one append must share one task id");
    }
  }
  const std::size_t row = m.row_for(records.front().task_id, Experiment::gen);
  m.guarded([&] {
    for (const auto& record : records) m.add_record(schema::kGen, gen_schema(), record);
    m.commit(row);
  });
}

void ResultsFile::append_witness(std::uint32_t task_id, std::int64_t position,
                                 const std::vector<double>& delta, const Matrix& X,
                                 const std::string& weights_name, const Matrix& weights) {
  std::vector<NamedArray> arrays;
  NamedArray d{task_id, "delta", position, Matrix(1, static_cast<Index>(delta.size()))};
  for (std::size_t i = 0; i < delta.size(); ++i) d.values(0, static_cast<Index>(i)) = delta[i];
  arrays.push_back(std::move(d));
  arrays.push_back({task_id, "X", -1, X});
  if (!weights_name.empty()) arrays.push_back({task_id, weights_name, -1, weights});
  append_arrays(arrays);
}

void ResultsFile::append_arrays(const std::vector<NamedArray>& arrays) {
  Impl& m = *impl_;
  m.require_usable();
  if (!m.save_witness) return;
  for (const auto& array : arrays) {
    const auto found = m.row_of.find(array.task_id);
    if (found == m.row_of.end() || m.done[found->second] != 0) {
      throw std::invalid_argument("witness of task " + std::to_string(array.task_id) +
                                  ": unknown or already done task");
    }
    if (array.name.empty() || array.name.size() > schema::kNameLength) {
      throw std::invalid_argument("witness array name '" + array.name + "' is empty or too long");
    }
  }
  m.guarded([&] {
    const char* g = schema::kWitness;
    for (const auto& array : arrays) {
      const auto offset = static_cast<std::int64_t>(h5::length(m.dataset(g, c::kValues)));
      m.row_bytes.clear();
      // Matrix is row-major, so its storage is the row-major flattening FORMAT.md promises.
      m.add_flat(
          g, c::kValues,
          std::vector<double>(array.values.data(), array.values.data() + array.values.size()));
      m.add(g, c::kTaskId, array.task_id);
      m.add_name(g, c::kName, array.name);
      m.add(g, c::kPosition, array.position);
      m.add(g, c::kRows, static_cast<std::int64_t>(array.values.rows()));
      m.add(g, c::kCols, static_cast<std::int64_t>(array.values.cols()));
      m.add(g, c::kOffset, offset);
      m.add_row_crc(g);
    }
  });
}

void ResultsFile::flush() {
  impl_->require_usable();
  impl_->guarded([&] { h5::flush(impl_->file); });
}

void ResultsFile::write_summaries() {
  Impl& m = *impl_;
  m.require_usable();
  m.guarded([&] {
    h5::flush(m.file);
    detail::write_summary_tables(m.file, detail::read_contents(m.file, ReadOptions{false}));
    h5::flush(m.file);
  });
}

void ResultsFile::close() {
  if (!impl_ || !impl_->file.valid()) return;
  Impl& m = *impl_;
  m.datasets.clear();
  std::string failure;
  try {
    h5::flush(m.file);
  } catch (const h5::Error& e) {
    failure = e.cause().empty() ? e.what() : e.cause();
  }
  try {
    m.file.close(m.current_name());
  } catch (const h5::Error& e) {
    if (failure.empty()) failure = e.cause().empty() ? e.what() : e.cause();
  }
  m.lock = FileLock();
  if (m.temporary.empty()) m.writer.release();  // a merge output keeps it until published
  if (!failure.empty()) throw std::runtime_error("cannot write " + m.path + ": " + failure);
}

}  // namespace wordsens::io

namespace wordsens::io {
void ResultsFile::set_sync(bool sync) { impl_->sync = sync; }
}  // namespace wordsens::io
