#include "scale/task_durations.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "study/cost_model.hpp"
#include "unit/task_timings_csv.hpp"

namespace wordsens::scale {
namespace {

// The columns that name a grid point, in the fixtures' header spelling.
const std::vector<std::string> kPointColumns = {"experiment", "model",  "n",     "d",
                                                "k",          "layers", "words", "N"};

std::string point_key(const TaskSpec& t) {
  const std::vector<std::string> values = {to_string(t.experiment), to_string(t.model),
                                           std::to_string(t.n),     std::to_string(t.d),
                                           std::to_string(t.k),     std::to_string(t.layers),
                                           std::to_string(t.words), std::to_string(t.N)};
  std::string key;
  for (const auto& v : values) key += v + ",";
  return key;
}

struct Recorded {
  std::uint32_t trial = 0;
  double seconds = 0;
};

}  // namespace

std::vector<double> recorded_seconds(const std::vector<TaskSpec>& tasks,
                                     const std::string& timings_csv) {
  const testing::TaskTimingsCsv csv(timings_csv);
  std::map<std::string, std::vector<Recorded>> by_point;
  for (std::size_t row = 0; row < csv.size(); ++row) {
    std::string key;
    for (const auto& name : kPointColumns) key += csv.at(row, name) + ",";
    by_point[key].push_back({static_cast<std::uint32_t>(std::stoul(csv.at(row, "trial"))),
                             std::stod(csv.at(row, "seconds"))});
  }
  for (auto& [key, rows] : by_point) {
    std::sort(rows.begin(), rows.end(),
              [](const Recorded& a, const Recorded& b) { return a.trial < b.trial; });
  }
  std::vector<double> seconds;
  seconds.reserve(tasks.size());
  for (const TaskSpec& t : tasks) {
    const auto it = by_point.find(point_key(t));
    if (it == by_point.end()) {
      throw std::runtime_error(timings_csv + " has no task of the point " + point_key(t));
    }
    seconds.push_back(it->second[t.trial % it->second.size()].seconds);
  }
  return seconds;
}

std::vector<double> modelled_seconds(const std::vector<TaskSpec>& tasks,
                                     const StudyConfig& config) {
  std::vector<double> seconds;
  seconds.reserve(tasks.size());
  for (const TaskSpec& t : tasks) seconds.push_back(estimated_seconds(t, config));
  return seconds;
}

}  // namespace wordsens::scale
