#include "study/study.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "models/model_kind.hpp"

namespace wordsens {

const std::vector<std::string>& canonical_models() {
  static const std::vector<std::string> models(known_models().begin(), known_models().end());
  return models;
}

const std::vector<std::string>& models_of(const StudyConfig& config, Experiment e) {
  return e == Experiment::gen && !config.gen_models.empty() ? config.gen_models : config.models;
}

const std::vector<Index>& n_grid_of(const StudyConfig& config, Experiment e) {
  return e == Experiment::gen && !config.gen_n.empty() ? config.gen_n : config.n;
}

const std::vector<Index>& d_grid_of(const StudyConfig& config, Experiment e) {
  return e == Experiment::gen && !config.gen_d.empty() ? config.gen_d : config.d;
}

bool is_budget_check_task(const TaskSpec& task, const StudyConfig& config) {
  return config.budget_check >= 2 && task.experiment == Experiment::ws && task.trial == 0 &&
         task.words == 1;
}

std::vector<Index> words_at(const StudyConfig& config, Index n) {
  std::vector<Index> words = config.words;
  for (const double f : config.words_fraction) {
    // ⌈f·n⌉ without the rounding of f·n pushing an exact product over the integer (0.25·8 = 2).
    const double m = f * static_cast<double>(n);
    const auto rounded = static_cast<Index>(std::llround(m));
    words.push_back(std::abs(m - static_cast<double>(rounded)) <= 1e-9 * m
                        ? rounded
                        : static_cast<Index>(std::ceil(m)));
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  if (!words.empty() && words.back() > n) {
    throw std::invalid_argument("words = " + std::to_string(words.back()) +
                                " exceeds n = " + std::to_string(n) +
                                " (a text has n words; use words-fraction to scale m with n)");
  }
  return words;
}

bool has_multi_word(const StudyConfig& config) {
  return !config.words_fraction.empty() ||
         std::any_of(config.words.begin(), config.words.end(), [](Index m) { return m != 1; });
}

Index feature_dim(const TaskSpec& task) {
  return model_traits(task.model).attention ? task.n * task.d : task.k;
}

std::string to_string(Activation a) { return a == Activation::relu ? "relu" : "tanh"; }

Activation parse_activation(const std::string& text) {
  if (text == "relu") return Activation::relu;
  if (text == "tanh") return Activation::tanh;
  throw std::invalid_argument("activation = '" + text + "': expected relu or tanh");
}

std::string describe(const TaskSpec& task) {
  std::string s = to_string(task.experiment) + " " + task.model + " n=" + std::to_string(task.n) +
                  " d=" + std::to_string(task.d);
  const ModelTraits& model = model_traits(task.model);
  if (!model.attention) s += " k=" + std::to_string(task.k);
  if (model.deep) s += " L=" + std::to_string(task.layers);
  if (task.words != 1) s += " m=" + std::to_string(task.words);
  if (task.experiment == Experiment::gen) s += " N=" + std::to_string(task.N);
  return s + " trial=" + std::to_string(task.trial) + " (task " + std::to_string(task.task_id) +
         ")";
}

namespace {
AscentOptions ascent_options(const StudyConfig& config) {
  AscentOptions ascent;
  ascent.max_evaluations = config.max_evals;
  ascent.relative_tolerance = config.rel_tol;
  return ascent;
}
}  // namespace

WsOptions ws_options(const StudyConfig& config) {
  WsOptions options;
  options.positions = config.positions;
  options.ascent = ascent_options(config);
  options.sphere_starts = config.sphere_starts;
  options.screen_points = config.screen_points;
  options.min_total_sphere_starts = config.min_total_sphere_starts;
  options.near_origin_starts = config.near_origin_starts;
  options.guided_start = config.guided_start;
  options.upper_bound = config.upper_bound;
  return options;
}

GenOptions gen_options(const StudyConfig& config) {
  GenOptions options;
  options.trainings = config.trainings;
  options.objectives = config.objectives;
  options.positions = config.positions;
  options.ascent = ascent_options(config);
  options.sphere_starts = config.sphere_starts;
  options.near_origin_starts = config.near_origin_starts;
  options.guided_start = config.guided_start;
  return options;
}

MultiWordOptions multi_word_options(const StudyConfig& config, Index words) {
  MultiWordOptions options;
  options.words = words;
  options.sets = config.word_sets;
  // The single-word search settings apply to each set; `positions` is the one-word tasks' own.
  StudyConfig per_set = config;
  per_set.positions = {PositionSet::Kind::first, 0};
  options.ws = ws_options(per_set);
  return options;
}

ModelSpec model_spec(const TaskSpec& task, const StudyConfig& config) {
  ModelSpec spec;
  spec.name = task.model;
  spec.n = task.n;
  spec.d = task.d;
  spec.k = task.k;
  spec.layers = task.layers;
  spec.activation = config.activation;
  if (model_traits(task.model).marginal_sampler) spec.sampling = config.rf_sampling;
  return spec;
}

namespace {

// Calls emit(point) for every grid point of the study, in the canonical order (the point's
// task_id, point_id and trial are left for the caller). Throws std::invalid_argument for a grid
// value out of its limits.
template <typename Emit>
void for_each_point(const StudyConfig& config, Emit&& emit) {
  for (const Experiment experiment : {Experiment::ws, Experiment::gen}) {
    if (std::find(config.experiments.begin(), config.experiments.end(), experiment) ==
        config.experiments.end()) {
      continue;
    }
    for (const auto& model : canonical_models()) {
      const auto& models = models_of(config, experiment);
      if (std::find(models.begin(), models.end(), model) == models.end()) {
        continue;
      }
      const ModelTraits& traits = model_traits(model);
      for (const Index n : n_grid_of(config, experiment)) {
        for (const Index d : d_grid_of(config, experiment)) {
          if (n * d > StudyLimits::max_D) {
            throw std::invalid_argument("n·d = " + std::to_string(n * d) +
                                        " (n=" + std::to_string(n) + ", d=" + std::to_string(d) +
                                        ") exceeds " + std::to_string(StudyLimits::max_D));
          }
          // Several k items may resolve to the same width at this (n, d): one point each.
          std::vector<Index> widths;
          if (traits.attention) {
            widths.push_back(0);  // k does not apply to attention models
          } else {
            for (const auto& item : config.k) widths.push_back(item.resolve(n, d));
            std::sort(widths.begin(), widths.end());
            widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
          }
          const std::vector<Index> depths = traits.deep ? config.layers : std::vector<Index>{1};
          const std::vector<Index> sizes =
              experiment == Experiment::gen ? config.N : std::vector<Index>{0};
          const std::vector<Index> word_counts =
              experiment == Experiment::ws ? words_at(config, n) : std::vector<Index>{1};
          for (const Index k : widths) {
            if (k > StudyLimits::max_k) {
              throw std::invalid_argument(
                  "k = " + std::to_string(k) + " at n=" + std::to_string(n) +
                  ", d=" + std::to_string(d) + " exceeds " + std::to_string(StudyLimits::max_k));
            }
            for (const Index L : depths) {
              for (const Index m : word_counts) {
                for (const Index N : sizes) {
                  TaskSpec point;
                  point.experiment = experiment;
                  point.model = model;
                  point.n = n;
                  point.d = d;
                  point.k = k;
                  point.layers = static_cast<int>(L);
                  point.words = m;
                  point.N = N;
                  const Index p = feature_dim(point);
                  if (experiment == Experiment::gen && N >= p) {
                    throw std::invalid_argument(
                        "gen needs N < p (the minimum-norm head interpolates N points in p "
                        "dimensions): N=" +
                        std::to_string(N) + " >= p=" + std::to_string(p) + " for " + model +
                        " at n=" + std::to_string(n) + ", d=" + std::to_string(d) +
                        (traits.attention ? "" : ", k=" + std::to_string(k)));
                  }
                  emit(point);
                }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

std::vector<TaskSpec> plan_tasks(const StudyConfig& config) {
  // Count first: a study over the limit is refused before its table is allocated.
  std::uint64_t points = 0;
  for_each_point(config, [&](const TaskSpec&) { ++points; });
  if (points * config.trials > static_cast<std::uint64_t>(StudyLimits::max_tasks)) {
    throw std::invalid_argument("the study has " + std::to_string(points * config.trials) +
                                " tasks, more than " + std::to_string(StudyLimits::max_tasks) +
                                "; split it into several configurations");
  }
  std::vector<TaskSpec> tasks;
  tasks.reserve(static_cast<std::size_t>(points * config.trials));
  std::uint32_t point_id = 0;
  for_each_point(config, [&](TaskSpec point) {
    point.point_id = point_id++;
    for (std::uint32_t trial = 0; trial < config.trials; ++trial) {
      point.trial = trial;
      point.task_id = static_cast<std::uint32_t>(tasks.size());
      tasks.push_back(point);
    }
  });
  return tasks;
}

std::string canonical_text(const StudyConfig& c) {
  std::vector<std::string> experiments, trainings, objectives;
  for (const auto e : c.experiments) experiments.push_back(to_string(e));
  for (const auto t : c.trainings) trainings.push_back(to_string(t));
  for (const auto o : c.objectives) objectives.push_back(to_string(o));
  // A std::map keeps the keys sorted, which is what makes the text canonical.
  std::map<std::string, std::string> entries{
      {"experiments", join_names(experiments)},
      {"models", join_names(c.models)},
      {"gen-models", join_names(models_of(c, Experiment::gen))},
      {"n", join_grid(c.n)},
      {"d", join_grid(c.d)},
      {"gen-n", join_grid(n_grid_of(c, Experiment::gen))},
      {"gen-d", join_grid(d_grid_of(c, Experiment::gen))},
      {"k", join_grid(c.k)},
      {"N", join_grid(c.N)},
      {"layers", join_grid(c.layers)},
      {"activation", to_string(c.activation)},
      {"trials", std::to_string(c.trials)},
      {"seed", std::to_string(c.seed)},
      {"positions", c.positions.to_string()},
      {"max-evals", std::to_string(c.max_evals)},
      {"rel-tol", format_double(c.rel_tol)},
      {"sphere-starts", std::to_string(c.sphere_starts)},
      {"min-total-sphere-starts", min_total_sphere_starts_text(c.min_total_sphere_starts)},
      {"near-origin-starts", std::to_string(c.near_origin_starts)},
      {"screen-points", std::to_string(c.screen_points)},
      {"upper-bound", c.upper_bound ? "true" : "false"},
      {"guided-start", c.guided_start ? "true" : "false"},
      {"training", join_names(trainings)},
      {"objective", join_names(objectives)},
      {"data", c.data.to_string()},
      {"save-witness", c.save_witness ? "true" : "false"},
      {"budget-check", std::to_string(c.budget_check)},
  };
  // Only when not the default, so that files written before the key existed still resume.
  if (c.rf_sampling == RfSampling::marginal) entries["rf-sampling"] = "marginal";
  if (has_multi_word(c)) {
    std::vector<std::string> fractions;
    for (const double f : c.words_fraction) fractions.push_back(format_double(f));
    entries["words"] = join_grid(c.words);
    entries["words-fraction"] = join_names(fractions);
    entries["word-sets"] = c.word_sets.to_string();
  }
  std::string text;
  for (const auto& [key, value] : entries) text += key + " = " + value + "\n";
  return text;
}

}  // namespace wordsens
