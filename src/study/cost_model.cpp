#include "study/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <stdexcept>
#include <vector>

#include "core/cpu_features.hpp"
#include "estimators/word_sensitivity.hpp"
#include "models/bounds/float_gram.hpp"
#include "models/shared/model_kind.hpp"

namespace wordsens {

double generation_cost() { return cpu_has_avx512f() ? kGenerationCostAvx512 : kGenerationCost; }

double float_gram_speedup() {
  return FloatGram::wide_kernel_available() ? kFloatGramSpeedupAvx512 : kFloatGramSpeedup;
}

namespace {

// Flops of one objective + gradient evaluation at one position (complexities in docs/METHOD.md §4).
double evaluation_cost(const TaskSpec& t) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d),
               k = static_cast<double>(t.k), L = static_cast<double>(t.layers);
  const ModelKind kind = model_kind(t.model);
  if (kind == ModelKind::rf) return 4.0 * k * d / kRfBatchedSpeedup;
  if (kind == ModelKind::drf) {
    const double weights = k * d + (L - 1.0) * k * k;
    return 4.0 * weights / (8.0 * weights <= kDrfCacheBytes ? kCachedDrfSpeedup : 1.0);
  }
  // raf, raf_relu: the batched objective's 8n·d + d² + 2n² multiply–adds per point, in
  // matrix–matrix products (models/attention/attention_batch.hpp).
  return 2.0 * (8.0 * n * d + d * d + 2.0 * n * n) / kBatchedSpeedup;
}

// Flops of φ(X) for one sample, and of generating the weights once.
double feature_cost(const TaskSpec& t) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d),
               k = static_cast<double>(t.k), L = static_cast<double>(t.layers);
  const ModelKind kind = model_kind(t.model);
  if (kind == ModelKind::rf) return 2.0 * k * n * d;
  if (kind == ModelKind::drf) return 2.0 * (k * n * d + (L - 1.0) * k * k);
  return 2.0 * (n * n * d + n * d * d);
}

double weight_cost(const TaskSpec& t) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d),
               k = static_cast<double>(t.k), L = static_cast<double>(t.layers);
  const ModelKind kind = model_kind(t.model);
  if (kind == ModelKind::rf) return generation_cost() * k * n * d;
  if (kind == ModelKind::drf) return generation_cost() * (k * n * d + (L - 1.0) * k * k);
  return generation_cost() * d * d;
}

// Per-position set-up of the fast evaluator: attention forms the leave-one-out sums T = E X
// (2·n²·d, dense) and evaluates φ once (4·(n·d + d²)); rf/drf generate the word's column block.
double position_setup_cost(const TaskSpec& t) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d),
               k = static_cast<double>(t.k);
  if (!model_traits(t.model).attention) return (generation_cost() + 2.0) * k * d;
  return 2.0 * n * n * d / kDenseSpeedup + 4.0 * (n * d + d * d);
}

// Once per sample: attention's products shared by all positions, X W, X Wᵀ (4·n·d²) and the
// scores X W Xᵀ (2·n²·d), dense.
double sample_setup_cost(const TaskSpec& t) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d);
  if (model_traits(t.model).attention) return (4.0 * n * d * d + 2.0 * n * n * d) / kDenseSpeedup;
  return 0.0;
}

// gen's single-point attention evaluations with W in the per-core (L2) cache: see
// single_point_evaluation_cost.
constexpr double kPerCoreCacheBytes = 1024.0 * 1024.0;
constexpr double kCachedAttentionSpeedup = 2.2;

// Random sphere points screened per position (WsOptions::screen_points): f only, no gradient.
constexpr double kScreenPoints = 64.0;

}  // namespace

Index positions_examined(const TaskSpec& task, const StudyConfig& config) {
  switch (config.search.positions.kind) {
    case PositionSet::Kind::first:
      return 1;
    case PositionSet::Kind::random:
      return std::min<Index>(task.n, config.search.positions.count);
    case PositionSet::Kind::all:
      break;
  }
  return task.n;
}

double expected_evaluations_per_start(const TaskSpec& task, const StudyConfig& config) {
  // Evaluations per start measured with `wordsens ws --trials 1 --seed 1` (docs/PERFORMANCE.md), as
  // (evaluations / positions − 64 screened) / 4 starts: raf 63-82 (n = 10-50, d = 192-384),
  // raf_relu 131-206, rf 163-280 (n = 20-40, d = 64-192), drf 165-181 (L = 2, 4).
  double typical = 80.0;  // raf
  switch (model_kind(task.model)) {
    case ModelKind::rf:
      typical = 250.0;
      break;
    case ModelKind::drf:
      typical = 175.0;
      break;
    case ModelKind::raf:
      break;
    case ModelKind::raf_relu:
      typical = 180.0;
      break;
  }
  return std::min(typical, static_cast<double>(config.search.max_evals));
}

// Flops of gen's Gram and head phases for rf with the marginal sampler: per pass over the
// k rows (gram and transpose_apply), R_b = F Z_b (M²·k) and X_P V_Pᵀ (2·M·|P|·d·k), the rank
// update (M²·k, gram only), and once the residual covariance (M²·(D − |P|·d)) and its Cholesky
// factor (M³/3). Normals: k·(M + |P|·d) per pass.
double marginal_gen_dense_flops(const TaskSpec& t, double positions) {
  const double M = static_cast<double>(t.N) + 1.0, k = static_cast<double>(t.k),
               d = static_cast<double>(t.d), D = static_cast<double>(t.n * t.d);
  return 2.0 * (M * M * k + 2.0 * M * positions * d * k) + M * M * k + M * M * (D - positions * d) +
         M * M * M / 3.0;
}

// ws rf with the full sampler, apart from the search: two passes over V (a = V vec(X) for the
// search; then the certification's plain φ(X), φ(X') with, when S_upper is asked for, every
// word's single-precision Gram V_iᵀV_i, n·k·d² flops at float_gram_speedup() times the dense
// double rate), and the double spectrum of the first examined word for the guided start (k·d²).
double full_rf_ws_cost(const TaskSpec& t, const StudyConfig& config) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d),
               k = static_cast<double>(t.k);
  const double passes = 2.0 * weight_cost(t) + 3.0 * feature_cost(t) / kDenseSpeedup;
  const double bound =
      config.search.upper_bound ? n * k * d * d / (float_gram_speedup() * kDenseSpeedup) : 0.0;
  const double guided = config.search.guided_start ? k * d * d / kDenseSpeedup : 0.0;
  return passes + bound + guided;
}

// In low dimension each position's best point is polished by a compass search (f only, one
// point per call), which mostly runs until its budget or its step tolerance: measured on
// regime_map.ini (d = 8, 16; n = 8 … 256), about 300 of its 400 evaluations per position.
double expected_polish_evaluations(const TaskSpec& task, const WsOptions& options) {
  if (task.d > options.polish_max_dim) return 0.0;
  return 0.75 * static_cast<double>(options.polish_evaluations);
}

// The search of a ws task with one changed word: per examined position, the evaluator's set-up,
// the screened sphere points and the ascents' evaluations (gen's searches: gen_search_cost).
double single_word_search_cost(const TaskSpec& task, const StudyConfig& config) {
  const Index examined = positions_examined(task, config);
  const double positions = static_cast<double>(examined);
  const WsOptions ws = ws_options(config);
  const double sphere = static_cast<double>(sphere_starts_per_position(ws, task.model, examined));
  const double starts =
      sphere + config.search.near_origin_starts + (config.search.guided_start ? 1.0 : 0.0);
  const double evaluations = 0.5 * std::max(kScreenPoints, sphere) +
                             starts * expected_evaluations_per_start(task, config) +
                             expected_polish_evaluations(task, ws);
  double search = sample_setup_cost(task) +
                  positions * (position_setup_cost(task) + evaluations * evaluation_cost(task));
  // The budget check reruns the search with f× the starts (each ascent usually stops on its
  // patience rule long before the f× larger budget): about f more searches.
  if (is_budget_check_task(task, config)) search *= 1.0 + config.search.budget_check;
  return search;
}

// Flops of one objective + gradient evaluation with s words changed at once
// (models/shared/word_set.cpp): rf and drf move the first layer by Σ_j B_j δ_j and pull back
// through the m blocks; attention updates the s changed rows and columns of the scores and every
// row's normalisation.
double set_evaluation_cost(const TaskSpec& t, double s) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d),
               k = static_cast<double>(t.k), L = static_cast<double>(t.layers);
  // rf: the k × m·d block is read twice per round of points (forward and back), not fused like
  // the single word's (measured: n = 150, d = 128, m = 8: 12 ms per evaluation, about twice the
  // mix's rate).
  const ModelKind kind = model_kind(t.model);
  if (kind == ModelKind::rf) return 4.0 * k * d * s / 2.0;
  if (kind == ModelKind::drf) return 4.0 * (k * d * s + (L - 1.0) * k * k);
  // Attention: matrix–matrix products over the call's points
  // (models/attention/attention_word_set.cpp) at about half the dense rate (measured: `ws --model
  // raf --n 250 --d 256 --words 4|16`, 15–25 Gflop/s in these terms).
  return 2.0 * (8.0 * n * d * s + 2.0 * d * d * s + 2.0 * n * n) / (kDenseSpeedup / 2.0);
}

// Set-up of one word set of size s: rf and drf draw (or copy) its s column blocks and, for the
// guided start, each block's spectrum (k·d², dense); attention computes the unperturbed scores
// and features once, dense; plus rf's certified bound of the set (s blocks generated again,
// their single-precision Gram at float_gram_speedup() times the dense rate).
double set_setup_cost(const TaskSpec& t, const StudyConfig& config, double s) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d),
               k = static_cast<double>(t.k);
  const ModelKind kind = model_kind(t.model);
  if (!traits(kind).attention) {
    const double bound = kind == ModelKind::rf && config.search.upper_bound
                             ? generation_cost() * k * d * s +
                                   k * s * d * s * d / (float_gram_speedup() * kDenseSpeedup)
                             : 0.0;
    const double guided = config.search.guided_start ? s * k * d * d / kDenseSpeedup : 0.0;
    return (generation_cost() + 2.0) * k * d * s + guided + bound;
  }
  return 2.0 * (2.0 * n * n * d + 2.0 * n * d * d) / kDenseSpeedup;
}

// The joint searches of a ws task with m ≥ 2 changed words (estimators/multi_word.cpp): one per
// examined set, from the guided, sphere and near-origin starts (greedy adds the warm start);
// greedy first searches every single word, then tries each word not yet in the set at each size.
double multi_word_search_cost(const TaskSpec& task, const StudyConfig& config) {
  const MultiWordOptions options = multi_word_options(config, task.words);
  const double starts = std::max(options.ws.sphere_starts, 1) + options.ws.near_origin_starts +
                        (options.ws.guided_start ? 1.0 : 0.0);
  // Attention's joint ascents take longer as the set grows (measured with multiword.ini and
  // `ws --words m`: raf 82, 129, 210, 240 evaluations per start at m = 2, 4, 8, 16, against 80
  // for one word); rf's stay near its single-word count (180–220).
  const double growth = model_traits(task.model).attention
                            ? std::pow(std::max(1.0, static_cast<double>(task.words) / 2.0), 0.6)
                            : 1.0;
  const double per_start = std::min(expected_evaluations_per_start(task, config) * growth,
                                    static_cast<double>(config.search.max_evals));
  const auto set_cost = [&](double s, double extra_starts) {
    return set_setup_cost(task, config, s) +
           (starts + extra_starts) * per_start * set_evaluation_cost(task, s);
  };
  const double m = static_cast<double>(task.words), n = static_cast<double>(task.n);
  switch (options.sets.kind) {
    case WordSetFamily::Kind::first:
      return set_cost(m, 0.0);
    case WordSetFamily::Kind::random:
      return static_cast<double>(options.sets.count) * set_cost(m, 0.0);
    case WordSetFamily::Kind::greedy: {
      TaskSpec single = task;
      single.words = 1;
      StudyConfig all = config;
      all.search.positions = {PositionSet::Kind::all, 0};
      double cost = single_word_search_cost(single, all);
      for (double size = 2.0; size <= m; size += 1.0)
        cost += (n - size + 1.0) * set_cost(size, 1.0);
      return cost;
    }
  }
  return 0.0;
}

// gen's head searches run one point at a time through the position evaluator (no batching):
// one objective + gradient costs rf 4·k·d (V_i forward and back), drf that plus the deeper
// layers, attention 8·n·d + 3·d² multiply–adds.
double single_point_evaluation_cost(const TaskSpec& t) {
  const double n = static_cast<double>(t.n), d = static_cast<double>(t.d),
               k = static_cast<double>(t.k), L = static_cast<double>(t.layers);
  const ModelKind kind = model_kind(t.model);
  if (kind == ModelKind::rf) return 4.0 * k * d;
  if (kind == ModelKind::drf) return 4.0 * (k * d + (L - 1.0) * k * k);
  // Attention's matrix–vector products read W (d × d) at every point: from the core's own cache
  // while it fits there, at about twice the mix's rate (measured: quick.ini's gen raf at d = 128,
  // 0.41-0.47 of the price without this factor; paper_gen's d = 768 is the calibration).
  const double cached = 8.0 * d * d <= kPerCoreCacheBytes ? kCachedAttentionSpeedup : 1.0;
  return 2.0 * (8.0 * n * d + 3.0 * d * d) / cached;
}

// Evaluations per start of gen's searches. Measured on paper_gen.ini (5 trials, d = 768,
// n = 40, 120): raf 97–124, rf 49–63 per start (they stop on the patience rule long before
// max-evals; the loss objective's ascents are the long ones). drf and raf_relu: not measured,
// priced like raf.
double gen_evaluations_per_start(const TaskSpec& t, const StudyConfig& config) {
  const double typical = model_kind(t.model) == ModelKind::rf ? 55.0 : 110.0;
  return std::min(typical, static_cast<double>(config.search.max_evals));
}

// One of gen's searches (a training × objective pair): per examined position the evaluator's
// set-up and its ascents (sphere, near-origin and guided starts; gen screens no sphere points).
double gen_search_cost(const TaskSpec& task, const StudyConfig& config) {
  const double positions = static_cast<double>(positions_examined(task, config));
  const double starts =
      static_cast<double>(config.search.sphere_starts + config.search.near_origin_starts) +
      (config.search.guided_start ? 1.0 : 0.0);
  return sample_setup_cost(task) +
         positions * (position_setup_cost(task) + starts * gen_evaluations_per_start(task, config) *
                                                      single_point_evaluation_cost(task));
}

// gen's dense phase with the whole feature matrix (attention; rf with the full sampler; drf):
// the N+1 texts' features one text at a time, the (N+1) × p matrix assembled, its Gram and the
// head. Measured on paper_gen.ini (raf, 5 trials, idle): about 0.3 of the dense rate (≈ 12
// Gflop/s at n = 40 and 120, d = 768, where the products alone run at ≈ 40).
constexpr double kGenDenseShare = 0.3;

double estimated_cost(const TaskSpec& task, const StudyConfig& config) {
  const bool rf = model_kind(task.model) == ModelKind::rf;
  if (task.experiment == Experiment::ws && task.words >= 2) {
    // The weights (rf: generated again by each pass over V — a = V vec(X), then φ(X) and
    // φ(X^M(Δ*)) from scratch for the certification), φ three times, and the searches.
    return weight_cost(task) * (rf ? 3.0 : 1.0) + 3.0 * feature_cost(task) / kDenseSpeedup +
           multi_word_search_cost(task, config);
  }
  const double positions = static_cast<double>(positions_examined(task, config));
  if (task.experiment == Experiment::ws) {
    const double search = single_word_search_cost(task, config);
    if (rf && config.rf_sampling == RfSampling::marginal) {
      // Only the examined words' blocks V_i are drawn (counted in the set-up) and
      // a = Σ_i V_i x_i plus a Gaussian residual: no pass over the k × D matrix.
      return positions * 2.0 * static_cast<double>(task.k * task.d) + search;
    }
    if (rf) return full_rf_ws_cost(task, config) + search;
    return weight_cost(task) + feature_cost(task) + search;
  }
  const double N = static_cast<double>(task.N);
  const double p = static_cast<double>(feature_dim(task));
  const double searches =
      static_cast<double>(config.search.trainings.size() * config.search.objectives.size()) *
      gen_search_cost(task, config);
  // Gram, features and head: dense matrix products, which run kDenseSpeedup times faster than
  // the estimator's memory-bound matrix–vector mix.
  if (rf && config.rf_sampling == RfSampling::marginal) {
    const double normals =
        2.0 * static_cast<double>(task.k) * (N + 1.0 + positions * static_cast<double>(task.d));
    return generation_cost() * normals + marginal_gen_dense_flops(task, positions) / kDenseSpeedup +
           (N * N * N / 3.0) / kDenseSpeedup + searches;
  }
  const double passes = rf ? 2.0 : 1.0;  // rf: gram and transpose_apply
  return passes * weight_cost(task) +
         ((N + 1.0) * passes * feature_cost(task) + N * N * p + N * N * N / 3.0) /
             (kGenDenseShare * kDenseSpeedup) +
         searches;
}

double estimated_seconds(const TaskSpec& task, const StudyConfig& config) {
  return estimated_cost(task, config) / kEffectiveFlopsPerSecond;
}

double predicted_wall_seconds(std::span<const double> task_seconds, int cores) {
  if (cores < 1) throw std::invalid_argument("predicted_wall_seconds: cores must be >= 1");
  std::vector<double> sorted(task_seconds.begin(), task_seconds.end());
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  // Min-heap of the cores' finishing times.
  std::priority_queue<double, std::vector<double>, std::greater<>> load;
  for (int c = 0; c < cores; ++c) load.push(0.0);
  double wall = 0.0;
  for (const double s : sorted) {
    const double end = load.top() + s;
    load.pop();
    load.push(end);
    wall = std::max(wall, end);
  }
  return wall;
}

}  // namespace wordsens
