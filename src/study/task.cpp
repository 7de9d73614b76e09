#include "study/task.hpp"

#include "core/errors.hpp"

namespace wordsens {

std::string to_string(Experiment e) { return e == Experiment::ws ? "ws" : "gen"; }

Experiment parse_experiment(const std::string& text) {
  if (text == "ws") return Experiment::ws;
  if (text == "gen") return Experiment::gen;
  throw InputError("unknown experiment '" + text + "' (expected ws or gen)");
}

TextUse text_use(const TaskSpec& task) {
  return {task.n, task.d, task.experiment == Experiment::gen ? task.N + 1 : 1, task.trial};
}

}  // namespace wordsens
