// The invariants of the records of done tasks (detail::check_record_invariants): the fields of
// one record against each other, its task and its file, as study/record_invariants.hpp states
// them. content_checks.cpp checks each value on its own; this checks how they fit together, so
// that a record edited consistently with its checksums (S set above every position's S, a bound
// without its scope) is damage rather than a number.
#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "io/format/contents.hpp"
#include "io/format/layout.hpp"
#include "io/format/schema.hpp"
#include "io/h5/h5.hpp"
#include "io/integrity/integrity.hpp"
#include "io/integrity/tally.hpp"
#include "study/record_invariants.hpp"

namespace wordsens::io::detail {

namespace {

namespace c = schema::col;

// A configuration key's value in config_text (also under an INI section), "" when absent.
std::string config_value(const std::map<std::string, std::string>& config, const std::string& key) {
  for (const auto& [name, value] : config) {
    if (name == key || (name.size() > key.size() && name.ends_with("." + key))) return value;
  }
  return "";
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    items.push_back(item);
    start = end + 1;
  }
  return items;
}

// The (training, objective) codes of every gen task's rows, from config_text's `training` and
// `objective` (record_fields.cpp's codes); empty when it names either not, or a name no run
// writes (the invariant is then not checked).
std::vector<std::pair<std::uint8_t, std::uint8_t>> gen_keys(
    const std::map<std::string, std::string>& config) {
  const std::string trainings = config_value(config, "training");
  const std::string objectives = config_value(config, "objective");
  if (trainings.empty() || objectives.empty()) return {};
  const auto codes = [](const std::string& text, const char* zero, const char* one) {
    std::vector<std::uint8_t> out;
    for (const auto& name : split_list(text)) {
      if (name == zero) {
        out.push_back(0);
      } else if (name == one) {
        out.push_back(1);
      } else {
        return std::vector<std::uint8_t>{};
      }
    }
    return out;
  };
  std::vector<std::pair<std::uint8_t, std::uint8_t>> keys;
  for (const auto t : codes(trainings, "finetune", "retrain")) {
    for (const auto o : codes(objectives, "loss", "align")) keys.emplace_back(t, o);
  }
  return keys;
}

// The stored witness_length of each row of done tasks of a record table, by task id (ws) or by
// (task id, training, objective) (gen).
std::vector<std::pair<std::uint32_t, std::int64_t>> witness_lengths(const h5::Handle& file,
                                                                    const char* group_name) {
  const h5::Handle group = h5::open_group(file, group_name);
  const auto ids = h5::read_all<std::uint32_t>(h5::open_dataset(group, c::kTaskId));
  const auto lengths = h5::read_all<std::int64_t>(h5::open_dataset(group, "witness_length"));
  std::vector<std::pair<std::uint32_t, std::int64_t>> rows;
  for (std::size_t i = 0; i < ids.size() && i < lengths.size(); ++i) {
    rows.emplace_back(ids[i], lengths[i]);
  }
  return rows;
}

}  // namespace

void check_record_invariants(const h5::Handle& file, Diagnosis& d) {
  const FileContents contents = read_contents(file, ReadOptions{false});
  const auto config = parse_config(contents.provenance.config_text);
  const auto missing = [&](const char* column) {
    return std::find(contents.missing_columns.begin(), contents.missing_columns.end(), column) !=
           contents.missing_columns.end();
  };
  RecordContext base;
  base.save_witness = contents.provenance.save_witness;
  base.marginal_sampler = config_value(config, "rf-sampling") == "marginal";
  base.upper_bound = config_value(config, "upper-bound") != "false";
  base.evidence_columns = !missing("/ws/S_upper_scope");
  base.position_columns = !missing("/ws/examined");
  base.word_set_columns = !missing("/ws/argmax_set");
  std::unordered_map<std::uint32_t, const TaskSpec*> task_of;
  for (const TaskSpec& t : contents.tasks) task_of.emplace(t.task_id, &t);
  const auto context_of = [&](std::uint32_t task_id) {
    RecordContext of_task = base;
    const TaskSpec& t = *task_of.at(task_id);
    of_task.n = t.n;
    of_task.d = t.d;
    of_task.words = t.words;
    return of_task;
  };

  // Tallies by (table, invariant), in the order of record_invariants().
  std::map<std::pair<std::string, std::string>, Tally> broken;
  const auto add = [&](const std::string& table, const BrokenInvariant& b, std::uint32_t task_id) {
    auto [at, fresh] =
        broken.try_emplace({table, b.id}, table + " records break the invariant " + b.id +
                                              " (FORMAT.md, " + "\"Invariants of a record\")");
    (void)fresh;
    at->second.add("task " + std::to_string(task_id) + ": " + b.found);
  };

  // A done task's rows are in the file once each (consistency.cpp): its first stored row is its.
  std::unordered_map<std::uint32_t, std::int64_t> ws_witness;
  for (const auto& [id, length] : witness_lengths(file, schema::kWs))
    ws_witness.emplace(id, length);
  for (const WsRecord& r : contents.ws) {
    for (const BrokenInvariant& b :
         broken_invariants(r, ws_witness.at(r.task_id), context_of(r.task_id))) {
      add(schema::kWs, b, r.task_id);
    }
  }

  // gen: the rows of each task together (read_contents sorts them by task id); their witness
  // lengths in the same order, by (task, training, objective).
  std::map<std::tuple<std::uint32_t, std::uint8_t, std::uint8_t>, std::int64_t> gen_witness;
  {
    const h5::Handle group = h5::open_group(file, schema::kGen);
    const auto training = h5::read_all<std::uint8_t>(h5::open_dataset(group, c::kTraining));
    const auto objective = h5::read_all<std::uint8_t>(h5::open_dataset(group, c::kObjective));
    const auto rows = witness_lengths(file, schema::kGen);
    for (std::size_t i = 0; i < rows.size() && i < training.size() && i < objective.size(); ++i) {
      gen_witness.emplace(std::tuple{rows[i].first, training[i], objective[i]}, rows[i].second);
    }
  }
  const auto keys = gen_keys(config);
  std::vector<std::pair<GenRecord, std::int64_t>> task_rows;
  const auto flush = [&] {
    if (task_rows.empty()) return;
    const std::uint32_t id = task_rows.front().first.task_id;
    for (const BrokenInvariant& b : broken_invariants(task_rows, keys, context_of(id))) {
      add(schema::kGen, b, id);
    }
    task_rows.clear();
  };
  for (const GenRecord& r : contents.gen) {
    if (!task_rows.empty() && task_rows.front().first.task_id != r.task_id) flush();
    task_rows.emplace_back(r, gen_witness.at(std::tuple{r.task_id, r.training, r.objective}));
  }
  flush();

  for (const RecordInvariant& rule : record_invariants()) {
    for (const char* table : {schema::kWs, schema::kGen}) {
      if (const auto found = broken.find({table, rule.id}); found != broken.end()) {
        found->second.report(d.problems);
      }
    }
  }
}

}  // namespace wordsens::io::detail
