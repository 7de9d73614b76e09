#pragma once
// What a results file holds, as plain values: who made it and from what (RunProvenance), its
// whole content as read back (FileContents), what the consistency check found (Diagnosis).
// Shared by the results file's interface and the layout code that reads and writes it.
#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "study/records.hpp"
#include "study/task.hpp"

namespace wordsens::io {

/// What the consistency check found (check_results, `wordsens info --check`).
struct Diagnosis {
  std::vector<std::string> problems;  // each one makes the file damaged
  std::vector<std::string> notes;     // legitimate leftovers of a killed writer, for information
  [[nodiscard]] bool damaged() const { return !problems.empty(); }
};

/// A build of wordsens, as the root attributes software_version, git_sha and build name it: its
/// records are bitwise reproducible by the same build only, so files of two builds are not
/// mixed unless asked, and then each record says which build computed it.
struct BuildId {
  std::string software_version, git_sha, build;
  bool operator==(const BuildId&) const = default;
};

/// One of the builds of a file that holds records of several (attribute `builds`): the tasks
/// whose records it computed.
struct BuildTasks {
  BuildId id;
  std::vector<std::uint32_t> tasks;  // ascending
};

/// Who made the file and from what; stored as root attributes.
struct RunProvenance {
  std::string command_line;  // argv joined by spaces
  int mpi_ranks = 1;         // ranks of the run that created the file
  std::uint32_t master_seed = 0;
  /// The full resolved configuration as canonical text: one `key = value` per line (the driver
  /// chooses the keys; leave out keys that may change between resumes, such as the wall time).
  /// Resume compares it line by line; merge compares it ignoring the keys in
  /// schema::kShardKeys.
  std::string config_text;
  bool save_witness = false;  // whether /witness and the record witness columns are filled
  /// One line per input file of the run (see input_fingerprint_lines in cli/config.hpp):
  /// "<data> size=… mtime=… content=…"; empty for synthetic data. Resume and merge compare the
  /// content hashes.
  std::string input_fingerprints;
  /// The build that computed the records (root attributes software_version, git_sha, build):
  /// this binary when empty (a run); a merge names its inputs' build.
  BuildId build;
  /// A file holding records of several builds (a merge with --allow-mixed-builds): each build
  /// with its tasks (attribute `builds`); empty otherwise.
  std::vector<BuildTasks> builds;
};

/// Everything a file holds, as read back (tests, merge, info). Rows come sorted by task id
/// (gen: by task id, training, objective) and only those of done tasks are included, so two
/// files with the same records compare equal whatever order the tasks finished in.
struct NamedArray {
  std::uint32_t task_id = 0;
  std::string name;            // "X" (the sample), "delta", or a weight name such as "W", "V"
  std::int64_t position = -1;  // i* for "delta", -1 otherwise
  Matrix values;               // row-major; a vector is stored as 1 × size
};

struct FileContents {
  RunProvenance provenance;
  std::string filetype, software_version, git_sha, created_utc, config_hash;
  std::string build;  // empty in format 1.0 files
  /// Attribute `builds` (format 1.5): set only in a file of several builds; a done task it does
  /// not list was computed by the build of the root attributes.
  std::vector<BuildTasks> builds;
  [[nodiscard]] BuildId build_id() const { return {software_version, git_sha, build}; }
  int format_major = 0, format_minor = 0;
  std::vector<TaskSpec> tasks;     // the planned task table, in file order
  std::vector<std::uint8_t> done;  // done[i] belongs to tasks[i]
  std::vector<WsRecord> ws;        // witness filled when the file stored it
  std::vector<GenRecord> gen;
  std::vector<NamedArray> arrays;  // /witness (only with save_witness)
  std::size_t array_count = 0;     // rows of /witness of done tasks (also when not read)
  /// Record columns a file of an older format version lacks ("/ws/cert_rel_err"); their values
  /// are the records' defaults (NaN for the floating-point ones).
  std::vector<std::string> missing_columns;
};

/// What read_results loads; witnesses and /witness arrays can be large (weights, samples).
struct ReadOptions {
  bool witness = true;  // false: leave every witness and `arrays` empty (array_count is set)
};

}  // namespace wordsens::io
