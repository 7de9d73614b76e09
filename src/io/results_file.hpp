#pragma once
// The HDF5 results file of `wordsens run` (layout: analysis/FORMAT.md, names:
// io/format/schema.hpp). Only rank 0 uses this class. No HDF5 type leaks out of this header.
//
// Crash safety: the file is written in HDF5's SWMR mode (latest format), so that its on-disk
// state stays consistent while it is appended. Every append writes the rows, flushes, then sets
// the task's done flag in /tasks and flushes again. A `kill -9` at any moment leaves a file that
// opens (the reader clears the "file open for write" flags a killed writer leaves behind) and
// holds every record whose done flag was flushed. Rows of a task whose done flag is unset
// (orphans of a kill) are at the tail of their tables; readers ignore them and resume
// truncates them.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "io/format/file_contents.hpp"
#include "io/format/format_doc.hpp"

namespace wordsens::io {

/// Opens `path` read-only and checks its consistency: column lengths agree with the committed
/// rows, every done task has exactly its rows, no duplicated rows, rows name tasks of /tasks,
/// offsets and lengths stay inside their value arrays, the root attributes are there.
/// Throws InputError for a missing or foreign file, DamagedFileError when HDF5 cannot open it.
[[nodiscard]] Diagnosis check_results(const std::string& path);

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

class ResultsFile {
 public:
  /// Creates a results file holding the provenance and the task table (all done flags unset).
  /// First takes the writer lock of `path` (InputError naming the holder when another process
  /// has it) and removes stale temporaries of killed creators. Refuses (InputError) an existing
  /// path unless `overwrite`, and with `overwrite` anything but a wordsens results file. The
  /// file is built under a temporary name in the same directory and renamed onto `path` only
  /// when complete (never replacing a file that appeared meanwhile, unless `overwrite`), so an
  /// error never damages an existing file. A `path` that is a symbolic link to a results file
  /// replaces the linked file and keeps the link. Throws InputError when the directory is
  /// unwritable; I/O failures (a full disk) throw std::runtime_error naming the file and the
  /// system error.
  static ResultsFile create(const std::string& path, const RunProvenance& provenance,
                            const std::vector<TaskSpec>& tasks, bool overwrite);

  /// Opens an existing file to continue its run, after taking its writer lock. Throws
  /// InputError (one line) when the file is missing, not a wordsens file, of a newer major or
  /// older minor version, written by another live process, when `config_text` differs from the
  /// stored one (the message names the differing keys), when another build (software_version,
  /// git_sha or build) computed its records, or when an input file changed
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
  /// Inputs computed by different builds (software_version, git_sha, build) are refused
  /// (InputError) unless `allow_mixed_builds`; the output then lists every build with its tasks
  /// (attribute `builds`). Its root build attributes are the first input's, not this binary's.
  static void merge(const std::vector<std::string>& inputs, const std::string& output,
                    bool overwrite, const std::string& command_line,
                    bool allow_mixed_builds = false);

 private:
  struct Impl;
  // create() with the merge provenance (attribute merged_from). With `publish_now` false the
  // file stays under its temporary name until publish().
  static ResultsFile create_file(const std::string& output, const RunProvenance& provenance,
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
