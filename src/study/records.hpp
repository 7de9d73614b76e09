#pragma once
// What a finished task sends back to rank 0 and what the results file stores, one row each.
// Every member is described once, with its unit and meaning, in study/record_fields.cpp: the
// file layout, its appends and reads and the MPI encoding all follow that table.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace wordsens {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// One row of /ws: S = S_m of a task with m = words changed words (docs/METHOD.md §4).
struct WsRecord {
  std::uint32_t task_id = 0;
  double S = 0;
  double S_upper = kNaN;             // NaN where the model has no certified bound
  std::uint8_t S_upper_scope = 0;    // BoundScope: 0 none, 1 all positions, 2 examined positions
  double cert_rel_err = kNaN;        // |S recomputed from scratch at the witness − S| / S
  std::int64_t argmax_position = 0;  // i*; −1 for several changed words (see argmax_set)
  double phi_norm = 0;
  std::int64_t evaluations = 0;
  std::int64_t starts = 0;            // ascents run, all positions
  std::int64_t starts_at_budget = 0;  // … of which stopped by the evaluation budget
  double stationarity = kNaN;         // r·‖projected gradient‖ / f at the witness
  double S_budget_check = kNaN;       // S of the rerun with more budget (budget-check tasks only)
  double seconds = 0;                 // wall time of the task (not part of bitwise comparisons)
  std::vector<double> witness;  // Δ* (m·d values, argmax_set's order); only with --save-witness
  std::vector<std::int64_t> examined;       // the positions examined, ascending
  std::vector<double> position_S;           // the best S found at each examined position
  std::vector<std::int64_t> argmax_set;     // M*, the changed words of the witness (m values)
  std::vector<std::int64_t> examined_sets;  // several words: the examined sets, m values each
  std::vector<double> set_S;                // several words: the best S_m found on each set
};

/// One row of /gen: one (training mode, Δ objective) of a task.
struct GenRecord {
  std::uint32_t task_id = 0;
  std::uint8_t training = 0;   // Training enum value: 0 finetune, 1 retrain
  std::uint8_t objective = 0;  // HeadObjective enum value: 0 loss, 1 align
  double t0 = 0, t1 = 0, D0 = 0, D1 = 0, E = 0;
  double cond_K = 0;
  double cert_rel_err = kNaN;  // |D1 from scratch − D1 of the search's evaluator| / max(1, |D1|)
  std::int64_t position = 0;
  std::int64_t evaluations = 0;
  double seconds = 0;
  std::vector<double> witness;  // Δ*; only with --save-witness
};

}  // namespace wordsens
