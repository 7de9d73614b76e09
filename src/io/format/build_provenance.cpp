#include "io/format/build_provenance.hpp"

#include <algorithm>
#include <charconv>
#include <set>
#include <sstream>
#include <stdexcept>

#include "study/study.hpp"
#include "wordsens/version.hpp"

namespace wordsens::io {
namespace {

// The fields of a line of `builds`, in this order, tab separated.
constexpr const char* kFields[] = {"software_version", "git_sha", "build", "tasks"};

// A field value on one line of its own: tabs and line breaks (never in a version text) become
// spaces.
std::string one_field(std::string value) {
  std::replace_if(
      value.begin(), value.end(), [](char ch) { return ch == '\t' || ch == '\n' || ch == '\r'; },
      ' ');
  return value;
}

std::uint32_t parse_id(const std::string& text) {
  std::uint32_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw std::invalid_argument("'" + text + "' is not a task id");
  }
  return value;
}

std::vector<std::uint32_t> parse_ranges(const std::string& text) {
  std::vector<std::uint32_t> ids;
  std::stringstream in(text);
  std::string item;
  while (!text.empty() && std::getline(in, item, ',')) {
    const auto dash = item.find('-');
    const std::uint32_t first = parse_id(item.substr(0, dash));
    const std::uint32_t last = dash == std::string::npos ? first : parse_id(item.substr(dash + 1));
    if (last < first || (!ids.empty() && first <= ids.back())) {
      throw std::invalid_argument("task ranges '" + text + "' are not ascending");
    }
    // A damaged range must not fill memory: no study has more tasks than this.
    if (ids.size() + (last - first) >= static_cast<std::size_t>(StudyLimits::max_tasks)) {
      throw std::invalid_argument("task ranges '" + text + "' hold more tasks than a study");
    }
    for (std::uint64_t id = first; id <= last; ++id) ids.push_back(static_cast<std::uint32_t>(id));
  }
  return ids;
}

}  // namespace

BuildId this_build() { return {version::software, version::git_sha, version::build}; }

std::string describe(const BuildId& id) {
  return "wordsens " + id.software_version + " (git " + id.git_sha + ", build " +
         (id.build.empty() ? std::string("not recorded") : id.build) + ")";
}

std::vector<std::string> build_differences(const BuildId& from, const BuildId& to) {
  std::vector<std::string> differences;
  const auto compare = [&](const char* name, const std::string& a, const std::string& b) {
    if (a != b) differences.push_back(std::string(name) + " " + a + " → " + b);
  };
  compare("software_version", from.software_version, to.software_version);
  compare("git_sha", from.git_sha, to.git_sha);
  compare("build", from.build.empty() ? "(not recorded)" : from.build,
          to.build.empty() ? "(not recorded)" : to.build);
  return differences;
}

std::vector<BuildTasks> builds_of(const FileContents& contents) {
  std::set<std::uint32_t> unlisted;
  for (std::size_t i = 0; i < contents.tasks.size(); ++i) {
    if (contents.done[i] != 0) unlisted.insert(contents.tasks[i].task_id);
  }
  std::vector<BuildTasks> builds;
  for (const BuildTasks& listed : contents.builds) {
    BuildTasks entry{listed.id, {}};
    for (const auto id : listed.tasks) {
      if (unlisted.erase(id) != 0) entry.tasks.push_back(id);
    }
    builds.push_back(std::move(entry));
  }
  if (!unlisted.empty() || builds.empty()) {
    BuildTasks root{contents.build_id(), {unlisted.begin(), unlisted.end()}};
    // The root build may also have a line of its own: its tasks join it.
    const auto same = std::find_if(builds.begin(), builds.end(),
                                   [&](const BuildTasks& b) { return b.id == root.id; });
    if (same == builds.end()) {
      builds.push_back(std::move(root));
    } else {
      same->tasks.insert(same->tasks.end(), root.tasks.begin(), root.tasks.end());
      std::sort(same->tasks.begin(), same->tasks.end());
    }
  }
  return builds;
}

std::string task_ranges(const std::vector<std::uint32_t>& ascending) {
  std::string text;
  for (std::size_t i = 0; i < ascending.size();) {
    std::size_t j = i;
    while (j + 1 < ascending.size() && ascending[j + 1] == ascending[j] + 1) ++j;
    if (!text.empty()) text += ",";
    text += std::to_string(ascending[i]);
    if (j > i) text += "-" + std::to_string(ascending[j]);
    i = j + 1;
  }
  return text;
}

namespace detail {

std::string format_builds(const std::vector<BuildTasks>& builds) {
  std::string text;
  for (const BuildTasks& b : builds) {
    const std::string values[] = {b.id.software_version, b.id.git_sha, b.id.build,
                                  task_ranges(b.tasks)};
    for (std::size_t i = 0; i < 4; ++i) {
      text += std::string(i == 0 ? "" : "\t") + kFields[i] + "=" + one_field(values[i]);
    }
    text += "\n";
  }
  return text;
}

std::vector<BuildTasks> parse_builds(const std::string& text) {
  std::vector<BuildTasks> builds;
  std::stringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.empty()) continue;
    std::string values[4];
    std::stringstream fields(line);
    std::string field;
    std::size_t count = 0;
    for (; std::getline(fields, field, '\t'); ++count) {
      const std::string key = count < 4 ? std::string(kFields[count]) + "=" : "";
      if (count >= 4 || field.compare(0, key.size(), key) != 0) {
        throw std::invalid_argument("line " + std::to_string(number) + " of attribute builds " +
                                    "is not software_version=…, git_sha=…, build=…, tasks=…");
      }
      values[count] = field.substr(key.size());
    }
    if (count != 4) {
      throw std::invalid_argument("line " + std::to_string(number) + " of attribute builds has " +
                                  std::to_string(count) + " fields, not 4");
    }
    try {
      builds.push_back({{values[0], values[1], values[2]}, parse_ranges(values[3])});
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("line " + std::to_string(number) +
                                  " of attribute builds: " + e.what());
    }
  }
  return builds;
}

}  // namespace detail
}  // namespace wordsens::io
