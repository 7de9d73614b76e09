#pragma once
// What `wordsens run --dry-run` prints for scripts (format = tsv or json): the plan's grid points
// with their tasks, estimated seconds and bytes, and the memory a rank needs. The Slurm submit
// script requests its memory from it and the paper's planner prices its studies with it, so
// neither parses the table written for people nor prices a model by its name.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli/config.hpp"
#include "cli/memory_check.hpp"
#include "study/host_calibration.hpp"
#include "study/memory_plan.hpp"
#include "study/task.hpp"

namespace wordsens::cli {

/// How --dry-run prints its plan (the run key `format`).
enum class PlanFormat { table, tsv, json };

/// A JSON string literal of any text (a configuration's paths may hold anything).
[[nodiscard]] std::string quoted(const std::string& text);

/// "table", "tsv" or "json"; throws InputError naming the key otherwise.
[[nodiscard]] PlanFormat parse_plan_format(const std::string& text);

/// One row per grid point: point, experiment, model, n, d, k, L, H, m, N, tasks, flops, seconds
/// (one core, summed over the point's tasks), bytes (one task's peak beyond the process).
void print_plan_tsv(std::ostream& out, const std::vector<TaskSpec>& tasks,
                    const std::vector<std::uint32_t>& selected, const RunOptions& options,
                    const HostCalibration* calibration = nullptr);

/// One JSON object: the study's trials as this run takes them (its `trials`, `first-trial` and
/// `max-trials`, 0: no extension planned), the rows of print_plan_tsv under "points", the
/// totals, each task's seconds
/// in task-id order ("task_seconds"), the predicted wall seconds on 1, 2, 4, 16 and 64 ranks,
/// and "memory" (bytes per rank, the largest task, what a rank has here).
void print_plan_json(std::ostream& out, const std::vector<TaskSpec>& tasks,
                     const std::vector<std::uint32_t>& selected, const RunOptions& options,
                     const MemoryPlan& memory, const RankMemory& available,
                     const HostCalibration* calibration = nullptr);

}  // namespace wordsens::cli
