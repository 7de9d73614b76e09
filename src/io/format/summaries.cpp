// /summary/ws and /summary/gen: statistics per grid point (and per training, objective) of the
// done rows. Derived data: rewritten whole at each write_summaries().
#include <map>
#include <tuple>

#include "io/format/contents.hpp"
#include "io/format/layout.hpp"
#include "io/format/schema.hpp"
#include "io/format/summary_stats.hpp"
#include "io/h5/h5.hpp"

namespace wordsens::io::detail {

namespace c = schema::col;

namespace {

// Column-wise buffers of one summary table, keyed by column name.
struct Buffers {
  std::map<std::string, std::vector<double>> f64;
  std::map<std::string, std::vector<std::int64_t>> i64;
  std::map<std::string, std::vector<std::uint32_t>> u32;
  std::map<std::string, std::vector<std::uint8_t>> u8;
  std::vector<std::string> model;

  void add_point(const TaskSpec& task) {
    u32[c::kPointId].push_back(task.point_id);
    model.push_back(to_string(task.model));
    i64[c::kN].push_back(task.n);
    i64[c::kD].push_back(task.d);
    i64[c::kK].push_back(task.k);
    i64[c::kNTrain].push_back(task.N);
    i64[c::kLayers].push_back(task.layers);
    i64[c::kHeads].push_back(task.heads);
    i64[c::kWords].push_back(task.words);
  }
  void add_statistics(const std::string& quantity, const std::vector<double>& values) {
    const auto statistics = summary_statistics(values);
    for (std::size_t i = 0; i < statistics.size(); ++i) {
      f64[quantity + "_" + c::kStatistics[i]].push_back(statistics[i]);
    }
  }

  void write(const h5::Handle& file, const char* group_name,
             const std::vector<Column>& columns) const {
    const h5::Handle group = h5::open_group(file, group_name);
    for (const auto& column : columns) {
      // A column newer than a resumed older file (heads in a 1.7 file) stays absent.
      if (column.since_minor > 0 && !h5::exists(group, column.name)) continue;
      const h5::Handle ds = h5::open_dataset(group, column.name);
      h5::set_length(ds, 0);
      switch (column.kind) {
        case Kind::f64:
          h5::append(ds, get(f64, column.name));
          break;
        case Kind::i64:
          h5::append(ds, get(i64, column.name));
          break;
        case Kind::u32:
          h5::append(ds, get(u32, column.name));
          break;
        case Kind::u8:
          h5::append(ds, get(u8, column.name));
          break;
        case Kind::str:
          h5::append_strings(ds, model);
          break;
        case Kind::name:  // no summary column has this kind
          break;
      }
    }
  }

 private:
  template <typename T>
  static std::vector<T> get(const std::map<std::string, std::vector<T>>& buffers,
                            const std::string& name) {
    const auto found = buffers.find(name);
    return found == buffers.end() ? std::vector<T>{} : found->second;
  }
};

}  // namespace

void write_summary_tables(const h5::Handle& file, const FileContents& contents) {
  std::map<std::uint32_t, const TaskSpec*> task_of;
  for (const auto& task : contents.tasks) task_of[task.task_id] = &task;
  const auto task = [&](std::uint32_t id) -> const TaskSpec& {
    const auto found = task_of.find(id);
    if (found == task_of.end()) throw std::runtime_error("a record's task is not in /tasks");
    return *found->second;
  };
  // The first task of a grid point describes the point (all its tasks share n, d, k, …).
  std::map<std::pair<Experiment, std::uint32_t>, const TaskSpec*> first_of_point;
  for (const auto& t : contents.tasks)
    first_of_point.emplace(std::pair{t.experiment, t.point_id}, &t);
  const auto point_spec = [&](Experiment e, std::uint32_t point) -> const TaskSpec& {
    return *first_of_point.at({e, point});
  };

  {
    // point id → (S values, S_upper values), in task-id order so sums are reproducible.
    std::map<std::uint32_t, std::pair<std::vector<double>, std::vector<double>>> groups;
    for (const auto& r : contents.ws) {
      auto& group = groups[task(r.task_id).point_id];
      group.first.push_back(r.S);
      group.second.push_back(r.S_upper);
    }
    Buffers out;
    for (const auto& [point, values] : groups) {
      out.add_point(point_spec(Experiment::ws, point));
      out.i64[c::kCount].push_back(static_cast<std::int64_t>(values.first.size()));
      out.add_statistics(c::kS, values.first);
      out.add_statistics(c::kSUpper, values.second);
    }
    out.write(file, schema::kSummaryWs, table(schema::kSummaryWs).columns);
  }
  {
    using Key = std::tuple<std::uint32_t, std::uint8_t, std::uint8_t>;
    std::map<Key, std::pair<std::vector<double>, std::vector<double>>> groups;
    for (const auto& r : contents.gen) {
      auto& group = groups[{task(r.task_id).point_id, r.training, r.objective}];
      group.first.push_back(r.E);
      group.second.push_back(r.D1);
    }
    Buffers out;
    for (const auto& [key, values] : groups) {
      out.add_point(point_spec(Experiment::gen, std::get<0>(key)));
      out.u8[c::kTraining].push_back(std::get<1>(key));
      out.u8[c::kObjective].push_back(std::get<2>(key));
      out.i64[c::kCount].push_back(static_cast<std::int64_t>(values.first.size()));
      out.add_statistics(c::kE, values.first);
      out.add_statistics(c::kD1, values.second);
    }
    out.write(file, schema::kSummaryGen, table(schema::kSummaryGen).columns);
  }
}

}  // namespace wordsens::io::detail
