#pragma once
// A configuration text (a results file's config_text, or a configuration file's text) read as
// `wordsens run` reads a configuration file: the same syntax (study/ini_text.hpp), the same keys
// (study/config_keys.hpp), the same values and checks (study/study_keys.hpp), and so the same
// one-line messages. On the study floor so that the results file (io) compares a file's task
// table with the plan of its stored configuration without the command line.
#include <string>
#include <vector>

#include "study/study.hpp"
#include "study/task.hpp"

namespace wordsens {

/// The study a configuration text describes, as `wordsens run` resolves it (the run's keys are
/// read and ignored; the encoder's weights are not read). Throws a std::exception with one line
/// on a text this version cannot parse ("configuration text:<line>: …" for a line or a key it
/// does not take).
[[nodiscard]] StudyConfig study_of_config_text(const std::string& text);

/// The task table a stored configuration text plans: study_of_config_text, then plan_tasks.
/// Throws a std::exception with one line on a text this version cannot parse or plan.
[[nodiscard]] std::vector<TaskSpec> plan_of_config_text(const std::string& text);

}  // namespace wordsens
