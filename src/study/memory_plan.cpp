#include "study/memory_plan.hpp"

#include "study/cost_model.hpp"

namespace wordsens {

MemoryPlan plan_memory(const std::vector<TaskSpec>& tasks,
                       const std::vector<std::uint32_t>& selected, const StudyConfig& config) {
  MemoryPlan plan;
  // The tasks of a grid point need the same memory, except a budget check's rerun (trial 0):
  // one price per point and per such task.
  std::uint32_t point = 0;
  double bytes = 0;
  bool priced = false;
  for (const std::uint32_t id : selected) {
    const TaskSpec& task = tasks[id];
    if (!priced || task.point_id != point || is_budget_check_task(task, config)) {
      bytes = estimated_task_bytes(task, config);
      point = task.point_id;
      priced = !is_budget_check_task(task, config);
      if (plan.largest == nullptr || bytes > plan.largest_task) {
        plan.largest_task = bytes;
        plan.largest = &task;
      }
    }
  }
  plan.per_rank =
      kProcessBytes + kBytesPerPlannedTask * static_cast<double>(tasks.size()) + plan.largest_task;
  return plan;
}

}  // namespace wordsens
