#include "study/study.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "core/errors.hpp"
#include "models/shared/model_kind.hpp"
#include "study/study_settings.hpp"

namespace wordsens {

const std::vector<ModelKind>& models_of(const StudyConfig& config, Experiment e) {
  return e == Experiment::gen && !config.grid.gen_models.empty() ? config.grid.gen_models
                                                                 : config.grid.models;
}

const std::vector<Index>& n_grid_of(const StudyConfig& config, Experiment e) {
  return e == Experiment::gen && !config.grid.gen_n.empty() ? config.grid.gen_n : config.grid.n;
}

const std::vector<Index>& d_grid_of(const StudyConfig& config, Experiment e) {
  return e == Experiment::gen && !config.grid.gen_d.empty() ? config.grid.gen_d : config.grid.d;
}

bool is_budget_check_task(const TaskSpec& task, const StudyConfig& config) {
  return config.search.budget_check >= 2 && task.experiment == Experiment::ws && task.trial == 0 &&
         task.words == 1;
}

std::vector<Index> words_at(const StudyConfig& config, Index n) {
  std::vector<Index> words = config.grid.words;
  for (const double f : config.grid.words_fraction) {
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
    throw InputError("words = " + std::to_string(words.back()) +
                     " exceeds n = " + std::to_string(n) +
                     " (a text has n words; use words-fraction to scale m with n)");
  }
  return words;
}

bool has_multi_word(const StudyConfig& config) {
  return !config.grid.words_fraction.empty() ||
         std::any_of(config.grid.words.begin(), config.grid.words.end(),
                     [](Index m) { return m != 1; });
}

namespace {

// Whether a model of some experiment of the study has the trait `has`.
template <typename Trait>
bool has_model_with(const StudyConfig& config, Trait has) {
  return std::any_of(config.grid.experiments.begin(), config.grid.experiments.end(),
                     [&](Experiment e) {
                       const auto& models = models_of(config, e);
                       return std::any_of(models.begin(), models.end(),
                                          [&](ModelKind m) { return has(traits(m)); });
                     });
}

}  // namespace

bool has_marginal_sampler_model(const StudyConfig& config) {
  return has_model_with(config, [](const ModelTraits& t) { return t.marginal_sampler; });
}

bool has_multi_head_model(const StudyConfig& config) {
  return has_model_with(config, [](const ModelTraits& t) { return t.multi_head; });
}

bool has_attention_model(const StudyConfig& config) {
  return has_model_with(config, [](const ModelTraits& t) { return t.attention; });
}

bool has_random_features_model(const StudyConfig& config) {
  return has_model_with(config,
                        [](const ModelTraits& t) { return t.width == ModelWidth::features; });
}

bool has_encoder_model(const StudyConfig& config) {
  return has_model_with(config, [](const ModelTraits& t) { return t.encoder; });
}

bool has_mlp_model(const StudyConfig& config) {
  return has_model_with(config, [](const ModelTraits& t) { return t.width == ModelWidth::mlp; });
}

std::string to_string(AttentionMask mask) {
  return mask == AttentionMask::causal ? "causal" : "none";
}

AttentionMask parse_mask(const std::string& text) {
  if (text == "none") return AttentionMask::none;
  if (text == "causal") return AttentionMask::causal;
  throw InputError("unknown mask '" + text + "' (expected none or causal)");
}

Index feature_dim(const TaskSpec& task) {
  return traits(task.model).attention ? task.n * task.d : task.k;
}

std::string to_string(Activation a) {
  switch (a) {
    case Activation::relu:
      return "relu";
    case Activation::tanh:
      return "tanh";
    case Activation::gelu:
      return "gelu";
  }
  return "relu";
}

Activation parse_activation(const std::string& text) {
  if (text == "relu") return Activation::relu;
  if (text == "tanh") return Activation::tanh;
  if (text == "gelu") return Activation::gelu;
  throw InputError("activation = '" + text + "': expected relu, tanh or gelu");
}

std::string describe(const TaskSpec& task) {
  std::string s = to_string(task.experiment) + " " + to_string(task.model) +
                  " n=" + std::to_string(task.n) + " d=" + std::to_string(task.d);
  const ModelTraits& model = traits(task.model);
  if (model.width != ModelWidth::none) s += " k=" + std::to_string(task.k);
  if (model.deep) s += " L=" + std::to_string(task.layers);
  if (model.multi_head) s += " H=" + std::to_string(task.heads);
  if (task.words != 1) s += " m=" + std::to_string(task.words);
  if (task.experiment == Experiment::gen) s += " N=" + std::to_string(task.N);
  return s + " trial=" + std::to_string(task.trial) + " (task " + std::to_string(task.task_id) +
         ")";
}

namespace {
AscentOptions ascent_options(const StudyConfig& config) {
  AscentOptions ascent;
  ascent.max_evaluations = config.search.max_evals;
  ascent.relative_tolerance = config.search.rel_tol;
  return ascent;
}
}  // namespace

WsOptions ws_options(const StudyConfig& config) {
  WsOptions options;
  options.positions = config.search.positions;
  options.ascent = ascent_options(config);
  options.sphere_starts = config.search.sphere_starts;
  options.screen_points = config.search.screen_points;
  options.min_total_sphere_starts = config.search.min_total_sphere_starts;
  options.near_origin_starts = config.search.near_origin_starts;
  options.guided_start = config.search.guided_start;
  options.upper_bound = config.search.upper_bound;
  options.race_evaluations = config.search.race_evaluations;
  options.race_survivors = config.search.race_survivors;
  return options;
}

GenOptions gen_options(const StudyConfig& config) {
  GenOptions options;
  options.trainings = config.search.trainings;
  options.objectives = config.search.objectives;
  options.positions = config.search.positions;
  options.ascent = ascent_options(config);
  options.sphere_starts = config.search.sphere_starts;
  options.near_origin_starts = config.search.near_origin_starts;
  options.guided_start = config.search.guided_start;
  return options;
}

MultiWordOptions multi_word_options(const StudyConfig& config, Index words) {
  MultiWordOptions options;
  options.words = words;
  options.sets = config.search.word_sets;
  // The single-word search settings apply to each set; `positions` is the one-word tasks' own.
  StudyConfig per_set = config;
  per_set.search.positions = {PositionSet::Kind::first, 0};
  options.ws = ws_options(per_set);
  return options;
}

ModelSpec model_spec(const TaskSpec& task, const StudyConfig& config) {
  ModelSpec spec;
  spec.kind = task.model;
  spec.n = task.n;
  spec.d = task.d;
  spec.k = task.k;
  spec.layers = task.layers;
  spec.activation = config.activation;
  if (traits(task.model).marginal_sampler) spec.sampling = config.rf_sampling;
  spec.heads = task.heads;
  if (traits(task.model).attention) spec.mask = config.mask;
  if (traits(task.model).encoder) spec.encoder = config.encoder;
  return spec;
}

namespace {

// Refuses a study of more than max_tasks tasks (`tasks` may be a lower bound of its count).
void check_task_count(std::uint64_t tasks) {
  if (tasks > static_cast<std::uint64_t>(StudyLimits::max_tasks)) {
    throw InputError("the study has at least " + std::to_string(tasks) + " tasks, more than " +
                     std::to_string(StudyLimits::max_tasks) +
                     "; split it into several configurations");
  }
}

// Every point times the values `values_of(point)` of one more axis, set by `set`, in order: the
// points of the previous axes stay outermost. Each axis gives every point at least one value, so
// the count after any axis is a lower bound of the study's: a grid too large is refused before
// the next axis multiplies it.
template <typename Value, typename ValuesOf, typename Set>
void expand(std::vector<TaskSpec>& points, std::uint32_t trials, ValuesOf&& values_of, Set&& set) {
  // Counted first, stopping at the limit: a huge grid is refused before it is built.
  std::uint64_t count = 0;
  for (const TaskSpec& point : points) {
    count += values_of(point).size();
    check_task_count(count * trials);
  }
  std::vector<TaskSpec> expanded;
  expanded.reserve(static_cast<std::size_t>(count));
  for (const TaskSpec& point : points) {
    for (const Value& value : values_of(point)) {
      TaskSpec next = point;
      set(next, value);
      expanded.push_back(std::move(next));
    }
  }
  points = std::move(expanded);
}

template <typename T>
bool contains(const std::vector<T>& values, const T& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// A relative width that rounds below 1 at a grid point is refused, naming the key: clamping it
// to 1 would run another model than the one asked for, without a word.
void require_width(const char* key, const std::string& item, Index width,
                   const std::string& formula, const TaskSpec& point) {
  if (width >= 1) return;
  throw InputError(std::string(key) + " = '" + item + "': " + formula + " = " +
                   std::to_string(width) + " at n=" + std::to_string(point.n) +
                   ", d=" + std::to_string(point.d) +
                   "; a width must be at least 1 (a larger factor, or an integer width)");
}

// The widths of a point's model at its (n, d), from the model's grid (k for random features,
// mlp-width for an MLP): several items may resolve to the same width, one point each; models
// without a width have none (0).
std::vector<Index> widths_at(const StudyConfig& config, const TaskSpec& point) {
  if (point.n * point.d > StudyLimits::max_D) return {0};  // refused by check_point
  std::vector<Index> widths;
  switch (traits(point.model).width) {
    case ModelWidth::none:
      return {0};
    case ModelWidth::features:
      for (const auto& item : config.grid.k) {
        widths.push_back(item.resolve(point.n, point.d));
        require_width("k", item.to_string(), widths.back(),
                      "round(" + format_double(item.factor) + "·n·d)", point);
      }
      break;
    case ModelWidth::mlp:
      for (const auto& item : config.grid.mlp_width) {
        widths.push_back(item.resolve(point.d));
        require_width("mlp-width", item.to_string(), widths.back(),
                      "round(" + format_double(item.factor) + "·d)", point);
      }
      break;
  }
  std::sort(widths.begin(), widths.end());
  widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
  return widths;
}

// The limits a grid point must respect; throws std::invalid_argument (one line).
void check_point(const TaskSpec& point) {
  const std::string at = "n=" + std::to_string(point.n) + ", d=" + std::to_string(point.d);
  if (point.n * point.d > StudyLimits::max_D) {
    throw InputError("n·d = " + std::to_string(point.n * point.d) + " (" + at + ") exceeds " +
                     std::to_string(StudyLimits::max_D));
  }
  if (point.k > StudyLimits::max_k) {
    throw InputError("k = " + std::to_string(point.k) + " at " + at + " exceeds " +
                     std::to_string(StudyLimits::max_k));
  }
  const Index p = feature_dim(point);
  if (point.experiment == Experiment::gen && point.N >= p) {
    const bool width = traits(point.model).width != ModelWidth::none;
    throw InputError(
        "gen needs N < p (the minimum-norm head interpolates N points in p dimensions): N=" +
        std::to_string(point.N) + " >= p=" + std::to_string(p) + " for " + to_string(point.model) +
        " at " + at + (width ? ", k=" + std::to_string(point.k) : ""));
  }
}

// The study's grid points in the canonical order (experiment, model, n, d, k, L, m, N): every
// combination of the axes, an axis that does not apply to a point giving it the one value that
// means "none"; then each point checked.
std::vector<TaskSpec> grid_points(const StudyConfig& config) {
  std::vector<TaskSpec> points(1);
  const std::uint32_t trials = config.grid.trials;
  expand<Experiment>(
      points, trials,
      [&](const TaskSpec&) {
        std::vector<Experiment> in_order;
        for (const Experiment e : {Experiment::ws, Experiment::gen}) {
          if (contains(config.grid.experiments, e)) in_order.push_back(e);
        }
        return in_order;
      },
      [](TaskSpec& p, Experiment e) { p.experiment = e; });
  expand<ModelKind>(
      points, trials,
      [&](const TaskSpec& p) {
        std::vector<ModelKind> in_order;
        for (const ModelTraits& model : all_models()) {
          if (contains(models_of(config, p.experiment), model.kind)) in_order.push_back(model.kind);
        }
        return in_order;
      },
      [](TaskSpec& p, ModelKind model) { p.model = model; });
  expand<Index>(
      points, trials, [&](const TaskSpec& p) { return n_grid_of(config, p.experiment); },
      [](TaskSpec& p, Index n) { p.n = n; });
  expand<Index>(
      points, trials, [&](const TaskSpec& p) { return d_grid_of(config, p.experiment); },
      [](TaskSpec& p, Index d) { p.d = d; });
  expand<Index>(
      points, trials, [&](const TaskSpec& p) { return widths_at(config, p); },
      [](TaskSpec& p, Index k) { p.k = k; });
  expand<Index>(
      points, trials,
      [&](const TaskSpec& p) {
        return traits(p.model).deep ? config.grid.layers : std::vector<Index>{1};
      },
      [](TaskSpec& p, Index L) { p.layers = static_cast<int>(L); });
  // After the depth: one value of H keeps every point's index (hence its weights) as before the
  // heads grid existed.
  expand<Index>(
      points, trials,
      [&](const TaskSpec& p) {
        return traits(p.model).multi_head ? config.grid.heads : std::vector<Index>{1};
      },
      [](TaskSpec& p, Index H) { p.heads = static_cast<int>(H); });
  expand<Index>(
      points, trials,
      [&](const TaskSpec& p) {
        return p.experiment == Experiment::ws ? words_at(config, p.n) : std::vector<Index>{1};
      },
      [](TaskSpec& p, Index m) { p.words = m; });
  expand<Index>(
      points, trials,
      [&](const TaskSpec& p) {
        return p.experiment == Experiment::gen ? config.grid.N : std::vector<Index>{0};
      },
      [](TaskSpec& p, Index N) { p.N = N; });
  for (const TaskSpec& point : points) check_point(point);
  return points;
}

}  // namespace

std::uint32_t trial_stride(const StudyGrid& grid) {
  return grid.max_trials > 0 ? grid.max_trials : grid.trials;
}

std::vector<TaskSpec> plan_tasks(const StudyConfig& config) {
  const std::vector<TaskSpec> points = grid_points(config);  // within max_tasks
  const StudyGrid& grid = config.grid;
  const std::uint64_t stride = trial_stride(grid);
  if (static_cast<std::uint64_t>(grid.first_trial) + grid.trials > stride) {
    throw InputError(
        "max-trials = " + std::to_string(grid.max_trials) + ": below first-trial + trials = " +
        std::to_string(static_cast<std::uint64_t>(grid.first_trial) + grid.trials) +
        (grid.first_trial > 0 ? " (an extension by more trials needs the study's max-trials)"
                              : ""));
  }
  // The entities of the whole grid at the stride must be distinct 32-bit counters.
  if (points.size() * stride > std::uint64_t{1} << 32) {
    throw InputError("the grid's " + std::to_string(points.size()) + " points times " +
                     std::to_string(stride) +
                     " trials exceed the 2^32 random stream entities; lower "
                     "max-trials or split the grid");
  }
  for (const PointSelector& s : grid.select.selectors()) {
    if (std::none_of(points.begin(), points.end(),
                     [&](const TaskSpec& p) { return s.matches(p); })) {
      throw InputError("select: '" + s.to_string() + "' matches no grid point");
    }
  }
  std::vector<TaskSpec> tasks;
  tasks.reserve(points.size() * grid.trials);
  std::uint32_t point_id = 0;
  for (std::size_t index = 0; index < points.size(); ++index) {
    if (!grid.select.contains(points[index])) continue;
    TaskSpec task = points[index];
    task.point_id = point_id++;
    for (std::uint32_t t = 0; t < grid.trials; ++t) {
      task.trial = grid.first_trial + t;
      task.task_id = static_cast<std::uint32_t>(tasks.size());
      task.stream_entity = static_cast<std::uint32_t>(index * stride + task.trial);
      tasks.push_back(task);
    }
  }
  return tasks;
}

void check_model_sizes(const std::vector<TaskSpec>& tasks, const StudyConfig& config) {
  for (const TaskSpec& t : tasks) {
    if (const auto problem = model_size_problem(model_spec(t, config))) throw InputError(*problem);
  }
}

std::string canonical_text(const StudyConfig& c) { return settings_text(study_settings(c)); }

}  // namespace wordsens
