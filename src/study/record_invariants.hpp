#pragma once
// The invariants between the fields of one record, and between the rows of one task, that every
// run writes by construction (study/run_task.cpp and the estimators it calls): S is the best S of
// the positions or word sets the search examined and is attained where the record says, a bound
// has the scope its search can give, the search's counts add up, the witness has its size, a gen
// task has one row per training mode and objective. A record that breaks one was not written by
// a run: every reader of a results file refuses it as damage (io/integrity/record_checks.cpp; the
// Python reader's reading/damage.py mirrors this list, and analysis/FORMAT.md, "Invariants of a
// record", prints it from record_invariants_markdown()). The rules on single values are
// record_fields.cpp's.
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "study/records.hpp"

namespace wordsens {

/// One invariant: the id every reader's message names, the table it holds in, and what it says.
struct RecordInvariant {
  const char* id;
  const char* table;  // "/ws" or "/gen"
  const char* text;   // as FORMAT.md words it
};

/// Every invariant, in FORMAT.md's order.
[[nodiscard]] std::span<const RecordInvariant> record_invariants();

/// The invariants as FORMAT.md prints them: one Markdown row each.
[[nodiscard]] std::string record_invariants_markdown();

/// What a record's invariants depend on beyond the record: its task, and its file.
struct RecordContext {
  std::int64_t n = 0, d = 0;
  std::int64_t words = 1;     // m, the task's changed words
  bool save_witness = false;  // the file's save_witness: the witness columns are filled
  // The file's configuration text: rf-sampling = marginal (its bound covers the examined
  // positions only), upper-bound = false (no bound at all).
  bool marginal_sampler = false;
  bool upper_bound = true;
  // Which columns the file has: format 1.2 added S_upper_scope, starts, starts_at_budget,
  // stationarity, S_budget_check (evidence) and examined, position_S (positions); 1.4
  // argmax_set, examined_sets, set_S (word sets). An invariant on columns a file lacks is not
  // checked.
  bool evidence_columns = true;
  bool position_columns = true;
  bool word_set_columns = true;
};

/// A broken invariant: its id and what the record holds instead ("S 1.5, position_S 0.5 at
/// argmax_position 2").
struct BrokenInvariant {
  const char* id;
  std::string found;
};

/// The invariants a /ws record breaks (empty: none), `witness_length` the length of its stored
/// witness (the record read without witnesses).
[[nodiscard]] std::vector<BrokenInvariant> broken_invariants(const WsRecord& record,
                                                             std::int64_t witness_length,
                                                             const RecordContext& context);

/// The invariants the rows of one gen task break: `rows` every row of the task with the length
/// of its stored witness, `keys` the (training, objective) codes config_text gives every gen
/// task (empty when it names none: not checked).
[[nodiscard]] std::vector<BrokenInvariant> broken_invariants(
    std::span<const std::pair<GenRecord, std::int64_t>> rows,
    const std::vector<std::pair<std::uint8_t, std::uint8_t>>& keys, const RecordContext& context);

}  // namespace wordsens
