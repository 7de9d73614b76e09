// The consistency check of a results file (detail::diagnose). A writer appends a task's rows
// table by table and only then sets its done flag (io/results_file.hpp), so whatever moment it
// is killed at, the rows of done tasks form a prefix of each record table, and only rows of
// unfinished tasks may follow that prefix (in columns that may then differ in length). Anything
// else is damage. The rules come from detail::tables(): no column is named here.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/format/build_provenance.hpp"
#include "io/format/layout.hpp"
#include "io/format/schema.hpp"
#include "io/h5/h5.hpp"
#include "io/integrity/integrity.hpp"
#include "io/integrity/tally.hpp"

namespace wordsens::io::detail {

namespace {

namespace c = schema::col;

struct TaskState {
  bool done = false;
  std::int64_t experiment = 0;
};
using TaskMap = std::unordered_map<std::int64_t, TaskState>;

std::string str(std::uint64_t value) { return std::to_string(value); }

// A group given by its absolute path ("/summary/ws"), or an invalid handle when it is missing.
h5::Handle find_group(const h5::Handle& file, const std::string& path) {
  h5::Handle current = h5::open_group(file, "/");
  std::size_t start = 1;
  while (start < path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string name = path.substr(start, end - start);
    if (!h5::exists(current, name)) return {};
    current = h5::open_group(current, name);
    start = end + 1;
  }
  return current;
}

// The datasets of a table that the file has, with their lengths. A missing one is a problem,
// unless the file's format version predates it.
struct TableData {
  h5::Handle group;
  std::map<std::string, h5::Handle> sets;
  std::map<std::string, std::uint64_t> length;

  [[nodiscard]] bool has(const std::string& name) const { return sets.count(name) != 0; }
  template <typename T>
  std::vector<T> read(const std::string& name, std::uint64_t rows) const {
    return h5::read_range<T>(sets.at(name), 0, rows);
  }
};

TableData open_table(const h5::Handle& file, const Table& table, int minor, Diagnosis& d) {
  TableData data;
  data.group = find_group(file, table.group);
  if (!data.group.valid()) {
    d.problems.push_back(std::string("the group ") + table.group + " is missing");
    return data;
  }
  const auto open = [&](const std::string& name, int since_minor) {
    if (!h5::exists(data.group, name)) {
      if (since_minor <= minor) {
        d.problems.push_back(std::string(table.group) + "/" + name + " is missing");
      }
      return;
    }
    h5::Handle set = h5::open_dataset(data.group, name);
    data.length[name] = h5::length(set);
    data.sets.emplace(name, std::move(set));
  };
  for (const auto& column : table.columns) open(column.name, column.since_minor);
  for (const auto& flat : table.flats) open(flat.values, flat.since_minor);
  return data;
}

void check_attributes(const h5::Handle& file, Diagnosis& d) {
  namespace a = schema::attr;
  for (const char* name :
       {a::kSoftwareVersion, a::kGitSha, a::kCreatedUtc, a::kCommandLine, a::kMpiRanks,
        a::kMasterSeed, a::kConfigText, a::kConfigHash, a::kSaveWitness}) {
    if (!h5::has_attribute(file, name)) {
      d.problems.push_back(std::string("the root attribute ") + name + " is missing");
    }
  }
  if (h5::has_attribute(file, a::kConfigText) && h5::has_attribute(file, a::kConfigHash) &&
      config_hash(h5::read_string_attribute(file, a::kConfigText)) !=
          h5::read_string_attribute(file, a::kConfigHash)) {
    d.problems.push_back(
        "config_hash does not match config_text (the stored configuration "
        "was altered)");
  }
  if (h5::has_attribute(file, a::kBuilds)) {
    try {
      (void)parse_builds(h5::read_string_attribute(file, a::kBuilds));
    } catch (const std::invalid_argument& e) {
      d.problems.push_back(e.what());
    }
  }
}

// The file holds no dataset, table or attribute that a format newer than its format_version
// added: a writer of that version could not have written it. A newer file relabelled as an
// older one would otherwise be read by the older version's rules (the analysis reader applied
// no checks at all below 1.5).
void check_version_against_contents(const h5::Handle& file, int minor, Diagnosis& d) {
  const std::string version = "format_version 1." + std::to_string(minor);
  const auto newer = [&](const std::string& what, int since) {
    d.problems.push_back(version + ", but it holds " + what + ", which format 1." +
                         std::to_string(since) + " added (relabelled as an older version?)");
  };
  for (const Table& table : tables()) {
    const h5::Handle group = find_group(file, table.group);
    if (!group.valid()) continue;
    if (table.since_minor > minor) {
      newer(std::string("the table ") + table.group, table.since_minor);
      continue;
    }
    for (const auto& column : table.columns) {
      if (column.since_minor > minor && h5::exists(group, column.name)) {
        newer(std::string(table.group) + "/" + column.name, column.since_minor);
      }
    }
    for (const auto& flat : table.flats) {
      if (flat.since_minor > minor && h5::exists(group, flat.values)) {
        newer(std::string(table.group) + "/" + flat.values, flat.since_minor);
      }
    }
  }
  if (schema::kConfigMinor > minor && h5::exists(file, schema::kConfig + 1)) {
    newer(std::string("the group ") + schema::kConfig, schema::kConfigMinor);
  }
  for (const auto& [name, since] : attribute_additions()) {
    if (since > minor && h5::has_attribute(file, name)) {
      newer(std::string("the root attribute ") + name, since);
    }
  }
}

// /tasks: written whole when the file is created, so its columns have one length; ids are
// unique; flags and codes are in range. Fills `tasks`; false when the table is unusable.
bool check_tasks(const h5::Handle& file, const Table& table, int minor, TaskMap& tasks,
                 Diagnosis& d) {
  const TableData t = open_table(file, table, minor, d);
  if (!t.has(c::kTaskId) || !t.has(c::kDone) || !t.has(c::kExperiment)) return false;
  const std::uint64_t rows = t.length.at(c::kTaskId);
  bool usable = true;
  for (const auto& [name, length] : t.length) {
    if (length != rows) {
      d.problems.push_back(std::string(table.group) + "/" + name + " has " + str(length) +
                           " rows, " + table.group + "/" + c::kTaskId + " has " + str(rows));
      usable = usable && length > rows;
    }
  }
  if (!usable) return false;
  const auto ids = t.read<std::int64_t>(c::kTaskId, rows);
  const auto done = t.read<std::int64_t>(c::kDone, rows);
  const auto experiment = t.read<std::int64_t>(c::kExperiment, rows);
  Tally repeated(std::string("task ids repeat in ") + table.group);
  Tally bad_flag(std::string("done flags other than 0 and 1 in ") + table.group);
  Tally bad_code(std::string("experiment codes other than 0 (ws) and 1 (gen) in ") + table.group);
  for (std::uint64_t i = 0; i < rows; ++i) {
    const std::string row = "row " + str(i);
    if (!tasks.emplace(ids[i], TaskState{done[i] == 1, experiment[i]}).second) {
      repeated.add(row + ", task " + std::to_string(ids[i]));
    }
    if (done[i] != 0 && done[i] != 1) bad_flag.add(row + ": " + std::to_string(done[i]));
    if (experiment[i] != 0 && experiment[i] != 1) {
      bad_code.add(row + ": " + std::to_string(experiment[i]));
    }
  }
  repeated.report(d.problems);
  bad_flag.report(d.problems);
  bad_code.report(d.problems);
  return true;
}

// The key of row i of a record table as text, e.g. "(12, 0, 1)".
class KeyReader {
 public:
  KeyReader(const TableData& t, const std::vector<std::string>& key, std::uint64_t rows) {
    for (const auto& name : key) {
      if (h5::type_class(t.sets.at(name)) == h5::TypeClass::string) {
        auto values = h5::read_strings(t.sets.at(name));
        values.resize(rows);
        columns_.push_back(std::move(values));
      } else {
        std::vector<std::string> values;
        for (const auto v : t.read<std::int64_t>(name, rows)) values.push_back(std::to_string(v));
        columns_.push_back(std::move(values));
      }
    }
  }
  [[nodiscard]] std::string key(std::uint64_t row) const {
    std::string text = "(";
    for (std::size_t k = 0; k < columns_.size(); ++k) {
      text += (k > 0 ? ", " : "") + columns_[k][row];
    }
    return text + ")";
  }

 private:
  std::vector<std::vector<std::string>> columns_;
};

// Offsets and lengths of the committed rows stay inside their flat value arrays.
void check_flats(const Table& table, const TableData& t, std::uint64_t committed, Diagnosis& d) {
  for (const auto& flat : table.flats) {
    const bool rows_cols = flat.length.empty();  // /witness: an array of rows · cols values
    const std::vector<std::string> needed =
        rows_cols ? std::vector<std::string>{flat.values, flat.offset, c::kRows, c::kCols}
                  : std::vector<std::string>{flat.values, flat.offset, flat.length};
    const bool readable = std::all_of(needed.begin() + 1, needed.end(), [&](const auto& name) {
      return t.has(name) && t.length.at(name) >= committed;
    });
    if (!t.has(flat.values) || !readable) continue;  // reported as missing or short columns
    const auto values = static_cast<std::int64_t>(t.length.at(flat.values));
    const auto offset = t.read<std::int64_t>(flat.offset, committed);
    std::vector<std::int64_t> length;
    if (rows_cols) {
      const auto rows = t.read<std::int64_t>(c::kRows, committed);
      const auto cols = t.read<std::int64_t>(c::kCols, committed);
      for (std::uint64_t i = 0; i < committed; ++i) {
        const bool fits =
            rows[i] >= 0 && cols[i] >= 0 &&
            (cols[i] == 0 || rows[i] <= std::numeric_limits<std::int64_t>::max() / cols[i]);
        length.push_back(fits ? rows[i] * cols[i] : -1);
      }
    } else {
      length = t.read<std::int64_t>(flat.length, committed);
    }
    Tally outside(std::string(table.group) + ": rows of done tasks point outside " + table.group +
                  "/" + flat.values + " (" + std::to_string(values) + " values)");
    for (std::uint64_t i = 0; i < committed; ++i) {
      if (offset[i] < 0 || length[i] < 0 || offset[i] > values - length[i]) {
        outside.add("row " + str(i) + ": offset " + std::to_string(offset[i]) + ", length " +
                    std::to_string(length[i]));
      }
    }
    outside.report(d.problems);
  }
}

// A record table: the rows of done tasks are a prefix that every column covers; each names a
// task of /tasks of the table's experiment; keys are unique; each done task has its rows.
void check_records(const h5::Handle& file, const Table& table, int minor, const TaskMap& tasks,
                   Diagnosis& d) {
  const TableData t = open_table(file, table, minor, d);
  if (!t.has(c::kTaskId)) return;
  const std::string group = table.group;
  const auto ids = h5::read_all<std::int64_t>(t.sets.at(c::kTaskId));
  const auto state = [&](std::int64_t id) -> const TaskState* {
    const auto found = tasks.find(id);
    return found == tasks.end() ? nullptr : &found->second;
  };
  std::uint64_t committed = 0;  // rows up to the last row of a done task
  Tally unknown(group + ": rows name task ids not in /tasks");
  for (std::uint64_t i = 0; i < ids.size(); ++i) {
    const TaskState* task = state(ids[i]);
    if (task == nullptr) unknown.add("row " + str(i) + ", task " + std::to_string(ids[i]));
    if (task != nullptr && task->done) committed = i + 1;
  }
  unknown.report(d.problems);

  std::uint64_t longest = 0;
  for (const auto& column : table.columns) {
    if (!t.has(column.name)) continue;
    const std::uint64_t length = t.length.at(column.name);
    longest = std::max(longest, length);
    if (length < committed) {
      d.problems.push_back(group + "/" + column.name + " has " + str(length) +
                           " rows, but the rows of done tasks reach row " + str(committed));
    }
  }

  Tally interleaved(group + ": a row of an unfinished task lies before rows of done tasks");
  Tally foreign(group + ": rows belong to tasks of the other experiment");
  std::map<std::int64_t, std::uint64_t> rows_of;  // done task → its rows here
  for (std::uint64_t i = 0; i < committed; ++i) {
    const TaskState* task = state(ids[i]);
    if (task == nullptr) continue;
    if (!task->done) {
      interleaved.add("row " + str(i) + ", task " + std::to_string(ids[i]));
      continue;
    }
    if (table.experiment >= 0 && task->experiment != table.experiment) {
      foreign.add("row " + str(i) + ", task " + std::to_string(ids[i]));
    }
    ++rows_of[ids[i]];
  }
  interleaved.report(d.problems);
  foreign.report(d.problems);

  const bool keyed = std::all_of(table.key.begin(), table.key.end(), [&](const auto& name) {
    return t.has(name) && t.length.at(name) >= committed;
  });
  if (keyed && !table.key.empty()) {
    const KeyReader keys(t, table.key, committed);
    std::unordered_map<std::string, std::uint64_t> first_row;
    std::string names;
    for (const auto& name : table.key) names += (names.empty() ? "" : ", ") + name;
    Tally repeated(group + ": rows of done tasks repeat their key (" + names + ")");
    for (std::uint64_t i = 0; i < committed; ++i) {
      const TaskState* task = state(ids[i]);
      if (task == nullptr || !task->done) continue;
      const std::string key = keys.key(i);
      const auto [found, fresh] = first_row.emplace(key, i);
      if (!fresh) repeated.add("rows " + str(found->second) + " and " + str(i) + ": " + key);
    }
    repeated.report(d.problems);
  }

  if (table.rows_per_task != RowsPerTask::any) {
    Tally missing(group + ": done tasks without their rows");
    Tally extra(group + ": done tasks with more than one row");
    for (const auto& [id, task] : tasks) {
      if (!task.done || task.experiment != table.experiment) continue;
      const auto found = rows_of.find(id);
      const std::uint64_t count = found == rows_of.end() ? 0 : found->second;
      if (count == 0) missing.add("task " + std::to_string(id));
      if (count > 1 && table.rows_per_task == RowsPerTask::exactly_one) {
        extra.add("task " + std::to_string(id) + ": " + str(count) + " rows");
      }
    }
    missing.report(d.problems);
    extra.report(d.problems);
  }

  check_flats(table, t, committed, d);
  if (longest > committed) {
    d.notes.push_back(group + ": " + str(longest - committed) +
                      " rows after the last done task's belong to unfinished tasks (left by an "
                      "interrupted write; readers ignore them, resume drops them)");
  }
}

// Summaries are derived data, rewritten whole when a run ends: uneven columns are the trace of
// an interrupted rewrite, not damage. /models is written once with the task table: they are.
void check_table_lengths(const h5::Handle& file, const Table& table, int minor, Diagnosis& d) {
  const TableData t = open_table(file, table, minor, d);
  std::uint64_t shortest = std::numeric_limits<std::uint64_t>::max(), longest = 0;
  for (const auto& [name, length] : t.length) {
    shortest = std::min(shortest, length);
    longest = std::max(longest, length);
  }
  if (longest > 0 && shortest != longest) {
    if (std::string(table.group) == schema::kModels) {  // written once, with the task table
      d.problems.push_back(std::string(table.group) + " has columns of unequal length");
    } else {
      d.notes.push_back(std::string(table.group) +
                        ": columns of unequal length (a summary rewrite was interrupted; the "
                        "next run or merge rewrites it)");
    }
  }
}

}  // namespace

Diagnosis diagnose(const h5::Handle& file) {
  Diagnosis d;
  const int minor = format_version(file).at(1);
  check_attributes(file, d);
  try {
    check_version_against_contents(file, minor, d);
  } catch (const h5::Error&) {
    // Metadata HDF5 cannot read: the table checks below name it, as they always did.
  }
  // /tasks comes first in tables(): its done flags are read before any record column, so a
  // reader of a live file never sees a done task whose rows it has not read (rows are flushed
  // before their done flag).
  TaskMap tasks;
  bool tasks_usable = false;
  for (const Table& table : tables()) {
    if (table.since_minor > minor) continue;  // a table the file's version did not have
    try {
      if (std::string(table.group) == schema::kTasks) {
        tasks_usable = check_tasks(file, table, minor, tasks, d);
      } else if (table.records) {
        if (tasks_usable) check_records(file, table, minor, tasks, d);
      } else {
        check_table_lengths(file, table, minor, d);
      }
    } catch (const h5::Error& e) {
      d.problems.push_back(std::string("cannot read ") + table.group + " (" + e.what() + ")");
      if (!h5::is_data_checksum(e)) {
        // Metadata HDF5 cannot read: every further read of it waits through HDF5's metadata
        // retries again, which on a loaded machine take seconds each; one is enough to know.
        d.notes.push_back(std::string("the tables after ") + table.group + " were not checked");
        return d;
      }
    }
  }
  check_content(file, minor, d);
  return d;
}

void require_consistent(const std::string& path, const Diagnosis& diagnosis) {
  if (!diagnosis.damaged()) return;
  const std::size_t more = diagnosis.problems.size() - 1;
  throw damaged_file(path, diagnosis.problems.front() +
                               (more > 0 ? "; and " + std::to_string(more) + " more problem" +
                                               (more > 1 ? "s" : "") + ": wordsens info --check " +
                                               path + " lists them"
                                         : ""));
}

}  // namespace wordsens::io::detail
