#pragma once
// The plan a stored configuration is checked against (integrity/content_checks.cpp). Public: the
// command line registers it.
#include <functional>
#include <string>
#include <vector>

#include "study/task.hpp"

namespace wordsens::io {

/// Plans the task table of a stored configuration text (config_text), or throws when this build
/// cannot parse it. io/ sits below the configuration parser, so the command line registers it
/// (set_task_planner); every consistency check then compares the stored task table with it.
using TaskPlanner = std::function<std::vector<TaskSpec>(const std::string& config_text)>;
void set_task_planner(TaskPlanner plan);

}  // namespace wordsens::io
