#pragma once
// The resolved configuration of a study (`wordsens run`) and its task table.
//
// The task table is a pure function of the StudyConfig: tasks are enumerated in a fixed,
// canonical order (experiment, model, n, d, k, L, m, N, trial), so task ids are stable across
// runs, rank counts and resumes. The canonical text is what the results file stores and what a
// resumed run must match; it contains every key that can change a result and nothing else.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "data/data_spec.hpp"
#include "estimators/multi_word.hpp"
#include "estimators/positions.hpp"
#include "estimators/trained_head.hpp"
#include "estimators/word_sensitivity.hpp"
#include "models/shared/feature_map.hpp"
#include "study/grid_spec.hpp"
#include "study/point_selection.hpp"
#include "study/task.hpp"

namespace wordsens {

/// Limits every grid value is checked against (one-line error, exit 2, before any file).
struct StudyLimits {
  static constexpr Index max_n = 100000;
  static constexpr Index max_d = 100000;
  static constexpr Index max_D = 2147483647;  // n·d: column indices of the weights are 32-bit
  static constexpr Index max_k = 2147483647;
  static constexpr Index max_N = 1000000;
  static constexpr Index max_layers = 64;
  static constexpr Index max_trials = 10000000;
  // Every rank holds the task table (about 100 bytes a task, plus the file's /tasks rows on
  // rank 0): 10⁷ tasks take about a gigabyte each; plan_tasks counts before it allocates.
  static constexpr Index max_tasks = 10000000;
};

/// Which tasks a study has: the grid axes and the trials per point (plan_tasks).
struct StudyGrid {
  std::vector<Experiment> experiments{Experiment::ws};  // canonical order: ws, gen
  std::vector<ModelKind> models{ModelKind::rf};         // canonical order: rf, drf, raf, raf_relu
  std::vector<ModelKind> gen_models;  // models of the gen experiment; empty: `models`
  std::vector<Index> n{10}, d{8};
  std::vector<Index> gen_n, gen_d;            // grids of the gen experiment; empty: `n`, `d`
  std::vector<KItem> k{KItem{true, 1.0, 0}};  // widths of rf and drf
  /// Widths of block's MLP (4d: kBlockWidthFactor, the default of `mlp-width`).
  std::vector<MlpWidthItem> mlp_width{MlpWidthItem{true, 4.0, 0}};
  std::vector<Index> N{20};      // gen training-set sizes
  std::vector<Index> layers{2};  // drf depth L
  std::vector<Index> heads{4};   // H of the multi-head models (mhraf, block); each divides d
  /// ws: the numbers m of words changed at once (1: S), and fractions f giving m = ⌈f·n⌉ at each
  /// n (so that m/n stays fixed while n grows).
  std::vector<Index> words{1};
  std::vector<double> words_fraction;
  std::uint32_t trials = 3;
  /// Trials first_trial … first_trial + trials − 1 are run (an extension of a study by more
  /// trials: the same texts and weights as those trials of a study planned at once).
  std::uint32_t first_trial = 0;
  /// The largest trial count the study may reach through extensions (0: none planned, the
  /// stride is `trials`). It fixes each task's stream entity (point · max_trials + trial) and,
  /// for the report, the number of looks at the data (docs/VERDICT_RULES.md, "Trials until
  /// decided").
  std::uint32_t max_trials = 0;
  PointSelection select;  // the grid points run (empty: all)
};

/// The trial stride of a study's stream entities: max_trials when planned, else trials.
[[nodiscard]] std::uint32_t trial_stride(const StudyGrid& grid);

/// How each task searches: the estimators' options (ws_options, gen_options and
/// multi_word_options build them from these).
struct SearchSettings {
  PositionSet positions;    // the positions the tasks with one changed word examine (all)
  WordSetFamily word_sets;  // the word sets of tasks with m ≥ 2 (first)
  int max_evals = 300;
  double rel_tol = 1e-7;
  int sphere_starts = WsOptions{}.sphere_starts;
  int screen_points = WsOptions{}.screen_points;                      // ws only
  int min_total_sphere_starts = WsOptions{}.min_total_sphere_starts;  // ws only; −1 = auto
  int near_origin_starts = WsOptions{}.near_origin_starts;
  bool guided_start = true;
  bool upper_bound = true;  // ws: compute S_upper where the model has one
  std::vector<Training> trainings{Training::finetune, Training::retrain};
  std::vector<HeadObjective> objectives{HeadObjective::loss, HeadObjective::align};
  /// 0: off; f ≥ 2: trial 0 of every ws grid point also reruns its search with f× the budget
  /// and f× the starts (recheck_with_more_budget), stored as S_budget_check.
  int budget_check = 0;
  int race_evaluations = WsOptions{}.race_evaluations;  // ws only; 0 = no race
  int race_survivors = WsOptions{}.race_survivors;      // ws only
};

struct StudyConfig {
  StudyGrid grid;
  SearchSettings search;
  // The models' settings.
  Activation activation = Activation::relu;
  RfSampling rf_sampling = RfSampling::full;  // rf's weights (ws and gen)
  AttentionMask mask = AttentionMask::none;   // the attention models' mask
  // A map rather than a test of the claims (the report shows its rows as a breakdown only);
  // changes no task, only the stored configuration.
  bool descriptive = false;
  DataSpec data;  // where the texts come from (synthetic)
  // The trained models' encoder: its folder (config.json and model.safetensors), the layer ℓ ≥ 1
  // they take (its input: layer ℓ − 1's states), and its weights once the command has read them
  // (cli/config_encoder.cpp; null until then, and in a configuration only planned).
  std::string encoder_path;
  Index encoder_layer = 1;
  std::shared_ptr<const EncoderLayer> encoder;
  std::uint32_t seed = 1;
  bool save_witness = false;
};

/// Largest budget-check factor accepted (the check costs about f times the plain search).
inline constexpr int kMaxBudgetCheck = 16;

/// Whether a task reruns its search for the budget check: ws with one word, trial 0, budget_check
/// on.
[[nodiscard]] bool is_budget_check_task(const TaskSpec& task, const StudyConfig& config);

/// The models an experiment runs (gen: gen_models unless empty).
[[nodiscard]] const std::vector<ModelKind>& models_of(const StudyConfig& config, Experiment e);

/// The n and d grids an experiment runs (gen: gen_n / gen_d unless empty). The head needs other
/// sizes than WS (the attention head separates the two texts only when d is large next to n).
[[nodiscard]] const std::vector<Index>& n_grid_of(const StudyConfig& config, Experiment e);
[[nodiscard]] const std::vector<Index>& d_grid_of(const StudyConfig& config, Experiment e);

/// p, the feature dimension of a task's model (k for rf/drf, D = n·d for attention).
[[nodiscard]] Index feature_dim(const TaskSpec& task);

/// All tasks of the study in canonical order; task_id = index, point_id = index of the grid
/// point. Throws InputError (one line) when a grid point is invalid: N ≥ p for gen,
/// n·d too large, too many tasks.
[[nodiscard]] std::vector<TaskSpec> plan_tasks(const StudyConfig& config);

/// Refuses (InputError, one line) a task whose model would not fit in memory (drf's layers), so
/// that a run says so before it starts rather than when the task runs.
void check_model_sizes(const std::vector<TaskSpec>& tasks, const StudyConfig& config);

/// Sorted `key = value` lines of everything that determines the results.
[[nodiscard]] std::string canonical_text(const StudyConfig& config);

/// The numbers of changed words the ws tasks at n words run: `words` and ⌈f·n⌉ for each
/// fraction f, ascending, without repeats. Throws InputError when one exceeds n.
[[nodiscard]] std::vector<Index> words_at(const StudyConfig& config, Index n);

/// Whether the study runs any task with several changed words (then canonical_text names the
/// words keys).
[[nodiscard]] bool has_multi_word(const StudyConfig& config);

/// Whether a model with a marginal sampler (rf) is among the models of the study's experiments,
/// the only ones rf_sampling applies to (then canonical_text names rf-sampling = marginal).
[[nodiscard]] bool has_marginal_sampler_model(const StudyConfig& config);

/// Whether a model with several heads (mhraf, block) is among the study's models (then
/// canonical_text names heads, and their tasks run each H of the heads grid).
[[nodiscard]] bool has_multi_head_model(const StudyConfig& config);

/// Whether an attention model is among the study's models (then canonical_text names a causal
/// mask).
[[nodiscard]] bool has_attention_model(const StudyConfig& config);

/// Whether a model of random features (rf, drf: k features, certified bounds that need a
/// 1-Lipschitz activation) is among the study's models (`activation = gelu` is refused then).
[[nodiscard]] bool has_random_features_model(const StudyConfig& config);

/// Whether a model of a pretrained encoder's layer (trained_attn, trained_layer and their
/// twins) is among the study's models (then canonical_text names encoder and encoder-layer).
[[nodiscard]] bool has_encoder_model(const StudyConfig& config);

/// Whether a model with an MLP (block) is among the study's models (then canonical_text names
/// mlp-width when it is not the default, and their tasks run each width of the mlp-width grid).
[[nodiscard]] bool has_mlp_model(const StudyConfig& config);

[[nodiscard]] std::string to_string(AttentionMask mask);
[[nodiscard]] AttentionMask parse_mask(const std::string& text);  // throws InputError

/// The estimators' options a study's settings give: the driver and the ws and gen commands
/// build them here, so the same settings always mean the same search.
[[nodiscard]] WsOptions ws_options(const StudyConfig& config);
[[nodiscard]] GenOptions gen_options(const StudyConfig& config);
/// The options of a ws task with m ≥ 2 changed words.
[[nodiscard]] MultiWordOptions multi_word_options(const StudyConfig& config, Index words);

/// The ModelSpec of a task.
[[nodiscard]] ModelSpec model_spec(const TaskSpec& task, const StudyConfig& config);

[[nodiscard]] std::string to_string(Activation a);
[[nodiscard]] Activation parse_activation(const std::string& text);  // throws InputError

/// One line describing a task, for logs and errors: "ws rf n=10 d=8 k=80 trial=3 (task 17)"
/// (" m=4" after the sizes when it changes several words).
[[nodiscard]] std::string describe(const TaskSpec& task);

}  // namespace wordsens
