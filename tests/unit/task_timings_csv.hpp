#pragma once
// The recorded task timings of tests/fixtures/task_timings (written by its make_fixtures.py): '#'
// comment lines, a header row, then one comma-separated row per task. Read by the ETA replay test
// (tests/unit/parallel) and the scale simulation (tests/bench/scale).
#include <algorithm>
#include <cstddef>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace wordsens::testing {

class TaskTimingsCsv {
 public:
  explicit TaskTimingsCsv(const std::string& path) : path_(path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::vector<std::string> fields;
      std::stringstream row(line);
      for (std::string field; std::getline(row, field, ',');) fields.push_back(field);
      if (header_.empty()) {
        header_ = std::move(fields);
      } else {
        rows_.push_back(std::move(fields));
      }
    }
  }

  [[nodiscard]] std::size_t size() const { return rows_.size(); }

  /// Row `row`'s field in the column named `name`.
  [[nodiscard]] const std::string& at(std::size_t row, const std::string& name) const {
    const auto it = std::find(header_.begin(), header_.end(), name);
    const auto column = static_cast<std::size_t>(it - header_.begin());
    if (it == header_.end() || column >= rows_.at(row).size()) {
      throw std::runtime_error(path_ + ": no column " + name);
    }
    return rows_[row][column];
  }

 private:
  std::string path_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace wordsens::testing
