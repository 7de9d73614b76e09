// ResultsFile::merge: job-array shards → one file whose records equal an unsharded run's.
#include <algorithm>
#include <map>
#include <set>

#include "io/format/build_provenance.hpp"
#include "io/format/layout.hpp"
#include "io/format/schema.hpp"
#include "io/results_file.hpp"

namespace wordsens::io {

namespace {

std::vector<std::string> shard_keys() {
  return {schema::kShardKeys.begin(), schema::kShardKeys.end()};
}

// config_text without the lines whose key is a shard key (with or without an INI section).
std::string without_shard_keys(const std::string& text) {
  std::string result;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    std::string key = line.substr(0, line.find('='));
    key.erase(0, key.find_first_not_of(" \t"));
    key.erase(key.find_last_not_of(" \t\r") + 1);
    const bool shard = std::any_of(schema::kShardKeys.begin(), schema::kShardKeys.end(),
                                   [&](const char* k) { return key == k; });
    if (!shard) result += line + "\n";
  }
  return result;
}

// The builds of the inputs, each with every task it computed, in the order the inputs name them.
// Throws InputError when there are several and `allow_mixed` is false.
std::vector<BuildTasks> merged_builds(const std::vector<std::string>& inputs,
                                      const std::vector<FileContents>& contents, bool allow_mixed) {
  std::vector<BuildTasks> builds;
  std::vector<std::size_t> first_input;  // the input where each build first appears
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (BuildTasks& b : builds_of(contents[i])) {
      const auto same = std::find_if(builds.begin(), builds.end(),
                                     [&](const BuildTasks& known) { return known.id == b.id; });
      if (same != builds.end()) {
        same->tasks.insert(same->tasks.end(), b.tasks.begin(), b.tasks.end());
        continue;
      }
      if (!builds.empty() && !allow_mixed) {
        const std::string where = first_input[0] == i
                                      ? inputs[i] + " holds records of several builds"
                                      : inputs[i] + " and " + inputs[first_input[0]] +
                                            " were computed by different builds";
        throw InputError(where + " (" + detail::join(build_differences(builds[0].id, b.id), "; ") +
                         "): their records need not agree to the last bit; merge them with "
                         "--allow-mixed-builds to keep both, each recorded with its tasks");
      }
      builds.push_back(std::move(b));
      first_input.push_back(i);
    }
  }
  for (BuildTasks& b : builds) std::sort(b.tasks.begin(), b.tasks.end());
  return builds;
}

bool same_spec(const TaskSpec& a, const TaskSpec& b) {
  return a.point_id == b.point_id && a.experiment == b.experiment && a.model == b.model &&
         a.n == b.n && a.d == b.d && a.k == b.k && a.N == b.N && a.layers == b.layers &&
         a.heads == b.heads && a.trial == b.trial;
}

}  // namespace

void ResultsFile::merge(const std::vector<std::string>& inputs, const std::string& output,
                        bool overwrite, const std::string& command_line, bool allow_mixed_builds) {
  if (inputs.empty()) throw InputError("merge needs at least one input file");
  std::vector<FileContents> contents;
  contents.reserve(inputs.size());
  // First pass without witnesses (they may be large): checks only.
  for (const auto& path : inputs) contents.push_back(read_results(path, ReadOptions{false}));

  // Same configuration up to the shard keys.
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const auto keys = differing_config_keys(contents[0].provenance.config_text,
                                            contents[i].provenance.config_text, shard_keys());
    if (!keys.empty()) {
      throw InputError(
          inputs[i] + " and " + inputs[0] +
          " have different configurations (differing keys: " + detail::join(keys, ", ") + ")");
    }
  }

  // The same input data (content hashes of the input files).
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const auto changed = differing_inputs(contents[0].provenance.input_fingerprints,
                                          contents[i].provenance.input_fingerprints);
    if (!changed.empty()) {
      throw InputError(inputs[i] + " and " + inputs[0] +
                       " were computed from different input data (" + detail::join(changed, "; ") +
                       ")");
    }
  }

  // Union of the task tables; a task may be done in one input only.
  std::map<std::uint32_t, TaskSpec> tasks;
  std::map<std::uint32_t, std::size_t> done_in;  // task id → input that finished it
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& c = contents[i];
    for (std::size_t row = 0; row < c.tasks.size(); ++row) {
      const TaskSpec& task = c.tasks[row];
      const auto [it, inserted] = tasks.emplace(task.task_id, task);
      if (!inserted && !same_spec(it->second, task)) {
        throw InputError("task " + std::to_string(task.task_id) + " differs between " + inputs[i] +
                         " and another input");
      }
      if (c.done[row] == 0) continue;
      const auto [first, fresh] = done_in.emplace(task.task_id, i);
      if (!fresh) {
        throw InputError("task " + std::to_string(task.task_id) + " is done in both " +
                         inputs[first->second] + " and " + inputs[i] + " (duplicated task)");
      }
    }
  }

  // After the task checks: a task done twice is reported as such, not as a second build.
  const std::vector<BuildTasks> builds = merged_builds(inputs, contents, allow_mixed_builds);

  RunProvenance provenance = contents[0].provenance;
  provenance.command_line = command_line;
  // The output names the build that computed its records (the inputs'), not the merging binary;
  // a mix lists every build with its tasks.
  provenance.build = contents[0].build_id();
  if (builds.size() > 1) provenance.builds = builds;
  provenance.config_text = without_shard_keys(provenance.config_text);
  for (const auto& c : contents) provenance.save_witness |= c.provenance.save_witness;
  std::vector<TaskSpec> table;
  table.reserve(tasks.size());
  for (const auto& [id, task] : tasks) table.push_back(task);

  // Built under a temporary name and renamed only when complete: a failure leaves no output.
  ResultsFile out = create_file(output, provenance, table, overwrite, inputs, false);
  out.set_sync(false);  // one flush at the end; a failed merge is simply rerun
  // Second pass, one input at a time so that only one is in memory: its done tasks in task-id
  // order (read_results sorts), each with its witness arrays first.
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    contents[i] = FileContents{};
    const FileContents c = read_results(inputs[i]);
    std::map<std::uint32_t, std::vector<NamedArray>> arrays;
    for (const auto& a : c.arrays) arrays[a.task_id].push_back(a);
    std::map<std::uint32_t, std::vector<GenRecord>> gen;
    for (const auto& r : c.gen) gen[r.task_id].push_back(r);
    const auto add_arrays = [&](std::uint32_t id) {
      if (const auto a = arrays.find(id); a != arrays.end()) out.append_arrays(a->second);
    };
    // Every done task has its rows (read_results refuses a file where one has not).
    for (const auto& r : c.ws) {
      add_arrays(r.task_id);
      out.append(r);
    }
    for (const auto& [id, rows] : gen) {
      add_arrays(id);
      out.append(rows);
    }
  }
  out.set_sync(true);
  out.write_summaries();
  out.publish();
}

}  // namespace wordsens::io
