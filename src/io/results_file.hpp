#pragma once
// The HDF5 results file of `wordsens run` (layout: analysis/FORMAT.md, names: io/schema.hpp).
// Only rank 0 uses this class. No HDF5 type leaks out of this header.
//
// Crash safety: the file is written in HDF5's SWMR mode (latest format), so that its on-disk
// state stays consistent while it is appended. Every append writes the rows, flushes, then sets
// the task's done flag in /tasks and flushes again. A `kill -9` at any moment leaves a file that
// opens (the reader clears the "file open for write" flags a killed writer leaves behind) and
// holds every record whose done flag was flushed. Rows of a task whose done flag is unset
// (orphans of a kill) are at the tail of their tables; readers ignore them and resume
// truncates them.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "grid/records.hpp"
#include "grid/task.hpp"

namespace wordsens::io {

/// Bad input rather than a failed computation: the file is missing, is not a wordsens results
/// file, has a newer major format version, belongs to a different configuration or input data,
/// another process writes it, or the merge inputs overlap. The CLI maps it to exit code 2
/// (kExitUsage). The message is one line.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A wordsens results file that cannot be trusted: HDF5 cannot read its metadata, or its tables
/// contradict each other (io/consistency.cpp). Exit code 1, like any failed I/O; the file is
/// left as it is. The message is one line naming the file and the (first) problem.
class DamagedFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What the consistency check found (check_results, `wordsens info --check`).
struct Diagnosis {
  std::vector<std::string> problems;  // each one makes the file damaged
  std::vector<std::string> notes;     // legitimate leftovers of a killed writer, for information
  [[nodiscard]] bool damaged() const { return !problems.empty(); }
};

/// Opens `path` read-only and checks its consistency: column lengths agree with the committed
/// rows, every done task has exactly its rows, no duplicated rows, rows name tasks of /tasks,
/// offsets and lengths stay inside their value arrays, the root attributes are there.
/// Throws InputError for a missing or foreign file, DamagedFileError when HDF5 cannot open it.
[[nodiscard]] Diagnosis check_results(const std::string& path);

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

/// Reads a whole results file, read-only (also a file left behind by a killed writer).
/// Throws InputError when the path is missing, not a wordsens file, or of a newer major version,
/// and DamagedFileError when it is damaged (check_results).
[[nodiscard]] FileContents read_results(const std::string& path);
[[nodiscard]] FileContents read_results(const std::string& path, const ReadOptions& options);

/// Differences between two canonical configuration texts: the keys whose values differ or that
/// are present in only one of them, sorted; keys in `ignored` are skipped.
[[nodiscard]] std::vector<std::string> differing_config_keys(
    const std::string& a, const std::string& b, const std::vector<std::string>& ignored = {});

/// Differences between two input-fingerprint texts (RunProvenance::input_fingerprints), one
/// line each: an input whose content hash differs ("embeddings:x.h5: content 1f…→9a…, size
/// 1000→1004 bytes, mtime …→…") or that only one of them lists. Empty when they agree.
[[nodiscard]] std::vector<std::string> differing_inputs(const std::string& stored,
                                                        const std::string& current);

/// The column table of a group ("/tasks", "/ws", "/gen", "/witness") as analysis/FORMAT.md
/// prints it: one Markdown row per column with its dtype, unit and meaning (the same text the
/// file stores in each dataset's `unit` and `meaning` attributes).
[[nodiscard]] std::string column_table_markdown(const std::string& group);

class ResultsFile {
 public:
  /// Creates a results file holding the provenance and the task table (all done flags unset).
  /// First takes the writer lock of `path` (InputError naming the holder when another process
  /// has it) and removes stale temporaries of killed creators. Refuses (InputError) an existing
  /// path unless `overwrite`, and with `overwrite` anything but a wordsens results file. The
  /// file is built under a temporary name in the same directory and renamed onto `path` only
  /// when complete (never replacing a file that appeared meanwhile, unless `overwrite`), so an
  /// error never damages an existing file. Throws InputError when the directory is unwritable;
  /// I/O failures (a full disk) throw std::runtime_error naming the file and the system error.
  static ResultsFile create(const std::string& path, const RunProvenance& provenance,
                            const std::vector<TaskSpec>& tasks, bool overwrite);

  /// Opens an existing file to continue its run, after taking its writer lock. Throws
  /// InputError (one line) when the file is missing, not a wordsens file, of a newer major or
  /// older minor version, written by another live process, when `config_text` differs from the
  /// stored one (the message names the differing keys), or when an input file changed
  /// (`input_fingerprints` against the stored ones). Throws DamagedFileError when the file is
  /// damaged (check_results), leaving it untouched. Then truncates orphan rows.
  static ResultsFile open_for_resume(const std::string& path, const std::string& config_text,
                                     const std::string& input_fingerprints = "");

  ResultsFile(ResultsFile&&) noexcept;
  ResultsFile& operator=(ResultsFile&&) noexcept;
  ResultsFile(const ResultsFile&) = delete;
  ResultsFile& operator=(const ResultsFile&) = delete;
  ~ResultsFile();  // flushes and closes; never throws

  [[nodiscard]] const std::vector<TaskSpec>& tasks() const;
  [[nodiscard]] std::vector<std::uint32_t> done_task_ids() const;  // ascending
  [[nodiscard]] bool is_done(std::uint32_t task_id) const;
  [[nodiscard]] bool save_witness() const;
  [[nodiscard]] const std::string& path() const;
  /// A write failed half-way (a full disk): further writes throw; close() still closes.
  [[nodiscard]] bool broken() const;

  /// Appends one ws row (with its witness when save_witness), flushes, marks the task done,
  /// flushes. Throws std::invalid_argument for an unknown, already done, or gen task.
  void append(const WsRecord& record);
  /// Appends all rows of one gen task (all share one task_id; usually 4: training × objective)
  /// atomically with the task's done flag, as above.
  void append(const std::vector<GenRecord>& records);

  /// Stores --save-witness data of a task in /witness: Δ* ("delta", 1 × d, with i*), the sample
  /// X ("X", n × d) and, when `weights_name` is non-empty, the weights. Call it BEFORE the task's
  /// append(record): the record's done flag is what commits these rows too. No-op unless
  /// save_witness.
  void append_witness(std::uint32_t task_id, std::int64_t position,
                      const std::vector<double>& delta, const Matrix& X,
                      const std::string& weights_name, const Matrix& weights);
  /// General form: any named arrays of a task (same commit rule as above).
  void append_arrays(const std::vector<NamedArray>& arrays);

  void flush();

  /// (Re)writes /summary/ws and /summary/gen from the done rows: per grid point (gen: and per
  /// training, objective) count, mean, std, sem, median, q05, q95 of S and S_upper (ws), of E
  /// and D1 (gen). Call at the end of a run (also after a partial one: it summarises what is
  /// done).
  void write_summaries();

  /// Flushes and closes; further calls throw. Called by the destructor.
  void close();

  /// Merges shard files into `output` (refused if it exists unless `overwrite`, and with
  /// `overwrite` unless it is a wordsens results file). Refuses (InputError) inputs with
  /// different configurations (config_text compared ignoring schema::kShardKeys), different
  /// input data, different specs under one task id, or a task done in two inputs; damaged
  /// inputs throw DamagedFileError. The output is built under a temporary name and renamed onto
  /// `output` only when complete and closed, so a failure (a full disk) leaves no output.
  /// The output's task table is the union (by task id); its rows come input by input, each
  /// input's by task id (one input in memory at a time); its config_text has the shard keys
  /// removed; it gets summaries. Records equal those of an unsharded run (read_results sorts).
  static void merge(const std::vector<std::string>& inputs, const std::string& output,
                    bool overwrite, const std::string& command_line);

 private:
  struct Impl;
  // create() with the merge provenance (attribute merged_from). With `publish_now` false the
  // file stays under its temporary name until publish().
  static ResultsFile create_file(const std::string& path, const RunProvenance& provenance,
                                 const std::vector<TaskSpec>& tasks, bool overwrite,
                                 const std::vector<std::string>& merged_from, bool publish_now);
  // Closes the file (checked) and renames it onto its final name.
  void publish();
  // Off: no flush around each record (merge builds a new file, then flushes once).
  void set_sync(bool sync);
  explicit ResultsFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace wordsens::io
