#pragma once
// What one task produces, and its byte encoding for the trip from a worker rank to rank 0.
// The encoding is explicit (field by field, fixed-width, host byte order: all ranks of one job
// run the same binary on the same architecture) so that doubles travel bit for bit.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "study/records.hpp"
#include "study/task.hpp"

namespace wordsens {

/// A named array stored with --save-witness: "delta" (1 × d, with i*), "X" (n × d), or weights.
struct TaskArray {
  std::string name;
  std::int64_t position = -1;
  Matrix values;
};

struct TaskOutput {
  std::uint32_t task_id = 0;
  Experiment experiment = Experiment::ws;
  WsRecord ws;                    // experiment == ws
  std::vector<GenRecord> gen;     // experiment == gen: one row per (training, objective)
  std::vector<TaskArray> arrays;  // only with --save-witness
};

[[nodiscard]] std::vector<std::uint8_t> encode(const TaskOutput& output);
/// Throws std::runtime_error when the bytes are truncated or not an encoded TaskOutput.
[[nodiscard]] TaskOutput decode_task_output(std::span<const std::uint8_t> bytes);

}  // namespace wordsens
