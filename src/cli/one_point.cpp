#include "cli/one_point.hpp"

#include <cstdint>
#include <iostream>
#include <map>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "cli/command_line.hpp"
#include "cli/config.hpp"
#include "cli/memory_check.hpp"
#include "cli/search_options.hpp"
#include "core/errors.hpp"
#include "core/types.hpp"
#include "models/shared/feature_map.hpp"
#include "models/shared/model_kind.hpp"
#include "study/grid_spec.hpp"
#include "study/memory_plan.hpp"
#include "study/run_task.hpp"

namespace wordsens::cli {

namespace po = boost::program_options;

namespace {

// Run's keys that take a grid or a list there and one value here, in the words of one value.
const std::map<std::string, std::string>& one_value_meanings() {
  static const std::map<std::string, std::string> meanings{
      {"n", "words per text (one value, >= 1)"},
      {"d", "embedding dimension (one value, >= 1)"},
      {"k", "width of rf/drf: an integer or a multiple of D = n*d such as 1.0D or 0.5D"},
      {"mlp-width", "width of block's MLP: an integer or a multiple of d such as 4d"},
      {"layers", "depth L of drf"},
      {"heads", "attention heads H of mhraf and block (each head d/H wide)"},
      {"N", "training-set size (1 <= N < p, p the feature dimension)"},
      {"words", "m, the number of words changed at once (1: the word sensitivity S)"},
      {"training", "how the head learns (X, y): finetune or retrain"},
      {"objective",
       "what the Delta search minimises: loss ((D1 + y)^2) or align (feature "
       "alignment)"},
      {"rf-sampling",
       "rf weights: full (all of V) or marginal (only the blocks of the examined "
       "positions plus an exact Gaussian residual per text: same law, O(k*d*|P|) "
       "normals instead of O(k*n*d); S_upper then bounds the examined positions "
       "only); rf only"},
  };
  return meanings;
}

}  // namespace

OnePointCommand::OnePointCommand(std::string name, Experiment experiment, KeySubset keys,
                                 const std::string& usage, bool ws_search_options)
    : name_(std::move(name)),
      experiment_(experiment),
      keys_(std::move(keys)),
      values_(default_run_key_values()),  // run's defaults for the keys not taken here
      described_(usage) {
  for (const auto& [key, meaning] : one_value_meanings()) keys_.meanings.emplace(key, meaning);
  std::string models;
  for (const auto& model : model_names()) models += (models.empty() ? "" : "|") + model;
  described_.add_options()                                                          //
      ("help,h", po::bool_switch(&help_), "print this help and exit")               //
      ("model", po::value(&model_), ("feature map (required): " + models).c_str())  //
      ("format", po::value(&format_)->default_value(format_),
       "output: text (one readable line per trial) | csv");
  add_study_keys(described_, values_.study, nullptr, &keys_);
  add_search_options(described_, values_.study, ws_search_options);
  for (const std::string& key : keys_.keys) {  // a misspelt key would drop an option silently
    if (described_.find_nothrow(key, /*approx=*/false) == nullptr) {
      throw std::logic_error("wordsens " + name_ + ": '" + key + "' is not a key of run");
    }
  }
}

bool OnePointCommand::parse(int argc, char** argv) {
  store_command_line(argc, argv, described_, po::positional_options_description{}, name_, given_);
  try {
    po::notify(given_);
  } catch (const po::error& e) {
    throw InputError(e.what());
  }
  if (help_) {
    std::cout << described_ << "\n";
    return false;
  }
  return true;
}

bool OnePointCommand::given(const std::string& key) const {
  return given_.count(key) != 0 && !given_[key].defaulted();
}

StudyConfig OnePointCommand::study() const {
  require_input(given("model"), "missing required option --model");
  for (const std::string& key : keys_.required) {
    require_input(given(key), "missing required option --" + key);
  }
  require_input(format_ == "text" || format_ == "csv",
                "format = '" + format_ + "': expected text or csv");
  const std::vector<std::string> models = parse_name_list("model", model_, model_names());
  require_input(models.size() == 1, "model = '" + model_ + "': one model");

  StudyKeyTexts values = values_.study;
  values["experiments"] = to_string(experiment_);
  values["models"] = models.front();
  StudyConfig config = resolve_study(values);

  // The grid keys hold one value each: a grid is what `wordsens run` is for.
  const StudyGrid& g = config.grid;
  const struct {
    const char* key;
    const std::string& text;
    std::size_t values;
  } grid_keys[] = {
      {"n", values["n"], g.n.size()},
      {"d", values["d"], g.d.size()},
      {"k", values["k"], g.k.size()},
      {"mlp-width", values["mlp-width"], g.mlp_width.size()},
      {"layers", values["layers"], g.layers.size()},
      {"heads", values["heads"], g.heads.size()},
      {"N", values["N"], g.N.size()},
      {"words", values["words"], g.words.size()},
      {"training", values["training"], config.search.trainings.size()},
      {"objective", values["objective"], config.search.objectives.size()},
  };
  for (const auto& [key, text, count] : grid_keys) {
    if (keys_.keys.count(key) != 0 && count != 1) {
      throw InputError(std::string(key) + " = '" + text + "': wordsens " + name_ +
                       " takes one value (wordsens run takes a grid)");
    }
  }
  require_input(
      config.rf_sampling == RfSampling::full || traits(config.grid.models.front()).marginal_sampler,
      "rf-sampling = 'marginal' applies to rf only");
  load_encoder(config);
  return config;
}

OnePointStudy plan_one_point(StudyConfig config) {
  OnePointStudy study;
  study.tasks = plan_tasks(config);
  check_model_sizes(study.tasks, config);
  // Memory before start, as `wordsens run` (cli/memory_check.hpp): a point too large for this
  // machine is refused with the numbers, not ended by std::bad_alloc in its first trial.
  std::vector<std::uint32_t> all(study.tasks.size());
  std::iota(all.begin(), all.end(), 0u);
  require_memory(plan_memory(study.tasks, all, config), rank_memory(RunOptions{}),
                 MemoryAdvice::one_point);
  study.data = make_data_source(config, study.tasks);
  study.config = std::move(config);
  return study;
}

double witness_norm(const std::vector<double>& witness) {
  return Eigen::Map<const Vector>(witness.data(), static_cast<Index>(witness.size())).norm();
}

void run_trials(const OnePointStudy& study,
                const std::function<void(const TaskSpec&, const TaskOutput&)>& row) {
  for (const TaskSpec& task : study.tasks) {
    // The rows print |Δ*|: the records keep the witness (no other array).
    row(task, run_task(task, study.config, *study.data, TaskDetail::witness));
  }
}

}  // namespace wordsens::cli
