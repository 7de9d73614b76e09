#include "study/host_calibration.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/errors.hpp"

namespace wordsens {
namespace {

std::string key_of(const std::string& experiment, const std::string& model) {
  return experiment + " " + model;
}

constexpr const char* kColumns =
    "experiment\tmodel\ttasks\tpredicted_seconds\tmeasured_seconds\trate";

std::string number(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

}  // namespace

HostCalibration::HostCalibration(const std::vector<TimedTask>& timed, std::string header)
    : header_(std::move(header)) {
  for (const TimedTask& t : timed) {
    if (!(t.predicted_seconds > 0) || !(t.measured_seconds > 0)) continue;
    HostRate& r = rates_[key_of(to_string(t.experiment), t.model)];
    ++r.tasks;
    r.predicted += t.predicted_seconds;
    r.measured += t.measured_seconds;
  }
}

HostCalibration HostCalibration::parse(const std::string& text, const std::string& source) {
  HostCalibration calibration;
  calibration.source_ = source;
  std::istringstream in(text);
  std::string line;
  int number_of_line = 0;
  bool header_seen = false;
  const auto bad = [&](const std::string& why) {
    throw InputError(source + ":" + std::to_string(number_of_line) + ": " + why +
                     " (write it again with `wordsens calibrate`)");
  };
  while (std::getline(in, line)) {
    ++number_of_line;
    if (line.empty()) continue;
    if (line[0] == '#') {
      const auto start = line.find_first_not_of("# ");
      if (calibration.header_.empty() && start != std::string::npos) {
        calibration.header_ = line.substr(start);
      }
      continue;
    }
    if (!header_seen) {
      if (line != kColumns) bad("not a wordsens cost calibration (expected its column names)");
      header_seen = true;
      continue;
    }
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string field; std::getline(row, field, '\t');) fields.push_back(field);
    // Each number whole: "2.0xyz" or a tasks count of "4.5" is refused, not read in part.
    const auto whole = [](const std::string& field, auto parse) {
      std::size_t used = 0;
      const auto value = parse(field, &used);
      if (used != field.size()) throw std::invalid_argument(field);
      return value;
    };
    HostRate r;
    double rate = 0;
    try {
      if (fields.size() != 6) throw std::invalid_argument("fields");
      r.tasks =
          whole(fields[2], [](const std::string& t, std::size_t* n) { return std::stoi(t, n); });
      const auto real = [](const std::string& t, std::size_t* n) { return std::stod(t, n); };
      r.predicted = whole(fields[3], real);
      r.measured = whole(fields[4], real);
      rate = whole(fields[5], real);
    } catch (const std::exception&) {
      bad("a row needs experiment, model, tasks (a whole number), predicted and measured "
          "seconds and rate, tab-separated, and nothing else");
    }
    const std::string& experiment = fields[0];
    const std::string& model = fields[1];
    if (experiment != "ws" && experiment != "gen") bad("unknown experiment '" + experiment + "'");
    if (r.tasks < 1 || !(r.predicted > 0) || !(r.measured > 0) || !std::isfinite(r.measured)) {
      bad("tasks and seconds must be positive");
    }
    if (std::abs(rate / r.rate() - 1) > 1e-3) bad("the rate is not measured / predicted");
    if (!calibration.rates_.emplace(key_of(experiment, model), r).second) {
      bad("a second row for " + experiment + " " + model);
    }
  }
  if (!header_seen) bad("empty: no column names");
  if (calibration.rates_.empty()) bad("no rate");
  return calibration;
}

std::string HostCalibration::text() const {
  std::string out = "# " + header_ + "\n" + kColumns + "\n";
  for (const auto& [key, r] : rates_) {
    const auto space = key.find(' ');
    out += key.substr(0, space) + "\t" + key.substr(space + 1) + "\t" + std::to_string(r.tasks) +
           "\t" + number(r.predicted) + "\t" + number(r.measured) + "\t" + number(r.rate()) + "\n";
  }
  return out;
}

double HostCalibration::overall_rate() const {
  if (rates_.empty()) return 1.0;
  double sum_log = 0;
  for (const auto& [key, r] : rates_) sum_log += std::log(r.rate());
  return std::exp(sum_log / static_cast<double>(rates_.size()));
}

double HostCalibration::seconds(const TaskSpec& task, double predicted_seconds) const {
  if (rates_.empty()) return predicted_seconds;
  const auto it = rates_.find(key_of(to_string(task.experiment), to_string(task.model)));
  return predicted_seconds * (it == rates_.end() ? overall_rate() : it->second.rate());
}

std::string default_calibration_path() {
  if (const char* path = std::getenv("WORDSENS_CALIBRATION"); path != nullptr && *path) {
    return path;
  }
  if (const char* config = std::getenv("XDG_CONFIG_HOME"); config != nullptr && *config) {
    return std::string(config) + "/wordsens/calibration.tsv";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home) {
    return std::string(home) + "/.config/wordsens/calibration.tsv";
  }
  return "";
}

}  // namespace wordsens
