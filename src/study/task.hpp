#pragma once
// A task is one (experiment, model, grid point, trial) (docs/METHOD.md §9). Its output is a pure
// function of (configuration, master seed, task id): the task id is also the Philox entity of the
// task's weights and random starts.
#include <cstdint>
#include <string>

#include "core/types.hpp"
#include "data/data_source.hpp"
#include "models/shared/model_kind.hpp"

namespace wordsens {

enum class Experiment : std::uint8_t { ws = 0, gen = 1 };

[[nodiscard]] std::string to_string(Experiment e);
[[nodiscard]] Experiment parse_experiment(const std::string& text);  // throws InputError

struct TaskSpec {
  std::uint32_t task_id = 0;   // stable: position in the planned task table
  std::uint32_t point_id = 0;  // stable id of (experiment, model, n, d, k, L, H, m, N)
  Experiment experiment = Experiment::ws;
  ModelKind model = ModelKind::rf;
  Index n = 0, d = 0, k = 0;  // k resolved to a number (k = 1.0D → n·d)
  Index N = 0;                // training-set size (gen; 0 for ws)
  int layers = 1;             // L (drf; 1 otherwise)
  int heads = 1;              // H, attention heads (mhraf, block; 1 otherwise)
  Index words = 1;            // m, the words changed at once (ws; 1 for gen): S_m, S = S_1
  std::uint32_t trial = 0;
  /// The Philox counter entity of the task's weights, starts and positions: its point's index in
  /// the whole grid times the study's trial stride plus its trial (study.hpp, plan_tasks). It
  /// equals task_id in a study planned at once, and stays the same when a study's trials are
  /// split into batches (first-trial, max-trials) or its points into selections.
  std::uint32_t stream_entity = 0;
};

/// The texts a task reads from its data source: the test text (ws), with the N training texts
/// (gen).
[[nodiscard]] TextUse text_use(const TaskSpec& task);

}  // namespace wordsens
