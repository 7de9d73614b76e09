#pragma once
// What a finished task sends back to rank 0 and what the results file stores, one row each.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace wordsens {

/// One row of /ws.
struct WsRecord {
  std::uint32_t task_id = 0;
  double S = 0;
  double S_upper = std::numeric_limits<double>::quiet_NaN();  // NaN where the model has none
  std::int64_t argmax_position = 0;
  double phi_norm = 0;
  std::int64_t evaluations = 0;
  double seconds = 0;           // wall time of the task (not part of bitwise comparisons)
  std::vector<double> witness;  // Δ* (d values); stored only with --save-witness
};

/// One row of /gen: one (training mode, Δ objective) of a task.
struct GenRecord {
  std::uint32_t task_id = 0;
  std::uint8_t training = 0;   // Training enum value: 0 finetune, 1 retrain
  std::uint8_t objective = 0;  // HeadObjective enum value: 0 loss, 1 align
  double t0 = 0, t1 = 0, D0 = 0, D1 = 0, E = 0;
  double cond_K = 0;
  std::int64_t position = 0;
  std::int64_t evaluations = 0;
  double seconds = 0;
  std::vector<double> witness;  // Δ*; only with --save-witness
};

}  // namespace wordsens
