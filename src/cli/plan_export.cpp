#include "cli/plan_export.hpp"

#include <cmath>
#include <cstdio>

#include "cli/run_report.hpp"
#include "core/errors.hpp"
#include "study/cost_model.hpp"

namespace wordsens::cli {
namespace {

// A number as JSON and TSV write it: integers exactly, the rest with 17 significant digits
// (the double read back is the one written).
std::string number(double value) {
  if (!std::isfinite(value)) return "null";  // JSON has no nan or inf
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

// Bytes as a whole number, rounded up: what a script requests must not fall short by a byte.
std::string bytes(double value) { return number(std::ceil(value)); }

constexpr const char* kColumns[] = {"point", "experiment", "model",   "n",    "d",
                                    "k",     "L",          "H",       "m",    "N",
                                    "tasks", "flops",      "seconds", "bytes"};

// The values of one point's row, in kColumns' order, as text (strings unquoted).
std::vector<std::string> row(std::uint32_t id, const PlannedPoint& p, const StudyConfig& study) {
  const TaskSpec& t = *p.first;
  return {std::to_string(id),       to_string(t.experiment),
          to_string(t.model),       std::to_string(t.n),
          std::to_string(t.d),      std::to_string(t.k),
          std::to_string(t.layers), std::to_string(t.heads),
          std::to_string(t.words),  std::to_string(t.N),
          std::to_string(p.count),  number(p.flops),
          number(p.seconds),        bytes(estimated_task_bytes(t, study))};
}

}  // namespace

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

PlanFormat parse_plan_format(const std::string& text) {
  if (text == "table") return PlanFormat::table;
  if (text == "tsv") return PlanFormat::tsv;
  if (text == "json") return PlanFormat::json;
  throw InputError("format = '" + text + "': expected table, tsv or json");
}

void print_plan_tsv(std::ostream& out, const std::vector<TaskSpec>& tasks,
                    const std::vector<std::uint32_t>& selected, const RunOptions& options,
                    const HostCalibration* calibration) {
  const PlannedTasks plan = plan_points(tasks, selected, options.study, calibration);
  const char* separator = "";
  for (const char* column : kColumns) {
    out << separator << column;
    separator = "\t";
  }
  out << "\n";
  for (const auto& [id, p] : plan.points) {
    separator = "";
    for (const std::string& value : row(id, p, options.study)) {
      out << separator << value;
      separator = "\t";
    }
    out << "\n";
  }
}

void print_plan_json(std::ostream& out, const std::vector<TaskSpec>& tasks,
                     const std::vector<std::uint32_t>& selected, const RunOptions& options,
                     const MemoryPlan& memory, const RankMemory& available,
                     const HostCalibration* calibration) {
  const PlannedTasks plan = plan_points(tasks, selected, options.study, calibration);
  out << "{\n  \"shard\": " << quoted(options.shard.to_string())
      << ",\n  \"tasks\": " << selected.size() << ",\n  \"tasks_in_study\": " << tasks.size()
      << ",\n  \"trials\": " << options.study.grid.trials
      << ",\n  \"first_trial\": " << options.study.grid.first_trial
      << ",\n  \"max_trials\": " << options.study.grid.max_trials << ",\n  \"calibration\": "
      << (calibration == nullptr ? std::string("null") : quoted(calibration->source()))
      << ",\n  \"points\": [";
  const char* separator = "\n";
  for (const auto& [id, p] : plan.points) {
    const std::vector<std::string> values = row(id, p, options.study);
    out << separator << "    {";
    for (std::size_t c = 0; c < values.size(); ++c) {
      const bool text = c == 1 || c == 2;  // experiment, model
      out << (c == 0 ? "" : ", ") << quoted(kColumns[c]) << ": "
          << (text ? quoted(values[c]) : values[c]);
    }
    out << "}";
    separator = ",\n";
  }
  out << "\n  ],\n  \"flops\": " << number(plan.flops) << ",\n  \"seconds_one_core\": ";
  double sum = 0;
  for (const double s : plan.task_seconds) sum += s;
  // Each task's seconds as well, in task-id order: a point's tasks need not cost the same (its
  // budget check's rerun costs more), and a planner that spreads a point's seconds evenly
  // misprices the wall time on as many ranks as the longest task decides it.
  out << number(sum) << ",\n  \"task_seconds\": [";
  separator = "";
  for (const double s : plan.task_seconds) {
    out << separator << number(s);
    separator = ", ";
  }
  out << "],\n  \"predicted_wall_seconds\": {";
  separator = "";
  for (const int cores : kPredictedCores) {
    out << separator << quoted(std::to_string(cores)) << ": "
        << number(predicted_wall_seconds(plan.task_seconds, cores));
    separator = ", ";
  }
  out << "},\n  \"memory\": {\"per_rank_bytes\": " << bytes(memory.per_rank)
      << ", \"largest_task_bytes\": " << bytes(memory.largest_task) << ", \"largest_task\": "
      << (memory.largest == nullptr ? std::string("null") : quoted(describe(*memory.largest)))
      << ", \"rank_has_bytes\": "
      << (available.bytes > 0 ? bytes(available.bytes) : std::string("null"))
      << ", \"rank_has_from\": " << quoted(available.how) << "}\n}\n";
}

}  // namespace wordsens::cli
