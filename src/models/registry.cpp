// The model catalogue: one row per model with everything the layers above ask of it (its name
// and traits, model_kind.hpp; its class, make_feature_map; the sizes it can never be built at,
// model_size_problem; its prices, model_costs). The only place that maps kinds to classes, so
// adding a model is a ModelKind and a row here (docs/EXTENDING.md).
#include <array>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/errors.hpp"
#include "models/attention/attention.hpp"
#include "models/attention/attention_costs.hpp"
#include "models/attention/value_attention.hpp"
#include "models/drf/drf.hpp"
#include "models/drf/drf_costs.hpp"
#include "models/rf/rf.hpp"
#include "models/rf/rf_costs.hpp"
#include "models/rf/rf_marginal.hpp"
#include "models/shared/feature_map.hpp"
#include "models/shared/model_costs.hpp"
#include "models/shared/model_kind.hpp"
#include "models/trained/trained.hpp"
#include "models/trained/trained_costs.hpp"
#include "models/transformer/transformer.hpp"
#include "models/transformer/transformer_costs.hpp"

namespace wordsens {

namespace {

struct CatalogueRow {
  ModelTraits traits;
  /// Its class for a spec of this kind whose common sizes build() has checked.
  std::unique_ptr<FeatureMap> (*make)(const ModelSpec&, WeightKey);
  /// A size the model can never be built at (memory), checked before a run starts; nothing for a
  /// model whose weights are generated in blocks or are d × d.
  std::optional<std::string> (*size_problem)(const ModelSpec&);
  /// Its prices, with their calibration (models/<family>/<family>_costs.hpp).
  const ModelCosts& (*costs)();
  /// Its prices under a causal mask where another class evaluates it then (raf, raf_relu and
  /// raf_v run through the transformer family's evaluator); nullptr: `costs`.
  const ModelCosts& (*causal_costs)() = nullptr;
  /// How long its ascents run, measured (study/cost_model.cpp counts a search's evaluations with
  /// it), and under the causal mask where that differs.
  SearchLengths search;
  std::optional<SearchLengths> causal_search = std::nullopt;
};

std::optional<std::string> any_size(const ModelSpec&) { return std::nullopt; }

// mhraf, block: head h takes columns [h·d/H, (h+1)·d/H) of Q, K and V.
std::optional<std::string> heads_problem(const ModelSpec& spec) {
  if (spec.heads >= 1 && spec.d % spec.heads == 0) return std::nullopt;
  return to_string(spec.kind) + ": heads = " + std::to_string(spec.heads) +
         " must divide d = " + std::to_string(spec.d);
}

// The trained family's rows (models/trained/trained.hpp): a trained encoder layer's attention or
// whole layer, or its random twin; one price per part, and their ascents' typical length.
template <TrainedPart part>
const ModelCosts& trained_costs() {
  static const TrainedCosts costs(part);
  return costs;
}

CatalogueRow trained_row(ModelKind kind, const char* name, const ModelCosts& (*costs)()) {
  return {.traits = {.kind = kind,
                     .name = name,
                     .attention = true,
                     .min_total_sphere_starts = 32,
                     .encoder = true},
          .make = make_trained_features,
          .size_problem = trained_problem,
          .costs = costs,
          .search = {.ws_evaluations_per_start = 100.0}};
}

// In the order of ModelKind, which is the canonical order of studies and files (traits() indexes
// the rows by kind; model_kind_test checks it).
const auto& catalogue() {
  static const auto rows = std::to_array<CatalogueRow>({
      // rf's ascents: evaluations / starts over the 225 first-word tasks of paper_ws_rf.ini and
      // paper_ws_rf_bound.ini (d = 192 … 768, n = 10 … 150), 166 at every d; over multiword.ini's
      // all-position searches (d = 8, 64), 222 and 249; earlier `wordsens ws --trials 1 --seed 1`
      // (n = 20-40, d = 64-192), 163-280. Its head searches: paper_gen.ini (5 trials, d = 768,
      // n = 40, 120), 49–63 per start.
      {.traits = {.kind = ModelKind::rf,
                  .name = "rf",
                  .attention = false,
                  .marginal_sampler = true,
                  .min_total_sphere_starts = 0,
                  .width = ModelWidth::features},
       .make = [](const ModelSpec& spec, WeightKey key) -> std::unique_ptr<FeatureMap> {
         return std::make_unique<RandomFeatures>(spec, key);
       },
       .size_problem = any_size,
       .costs = []() -> const ModelCosts& {
         static const RfCosts costs;
         return costs;
       },
       .search = {.ws_evaluations_per_start = 175.0, .gen_evaluations_per_start = 55.0}},
      // drf's ascents, measured like rf's: 165-181 at L = 2, 4; its head searches are not
      // measured (priced like raf's).
      {.traits = {.kind = ModelKind::drf,
                  .name = "drf",
                  .attention = false,
                  .deep = true,
                  .min_total_sphere_starts = 0,
                  .width = ModelWidth::features},
       .make = [](const ModelSpec& spec, WeightKey key) -> std::unique_ptr<FeatureMap> {
         require_input(spec.layers >= 1,
                       "drf: layers must be >= 1, got " + std::to_string(spec.layers));
         return std::make_unique<DeepRandomFeatures>(spec, key);
       },
       .size_problem = DeepRandomFeatures::size_problem,
       .costs = []() -> const ModelCosts& {
         static const DrfCosts costs;
         return costs;
       },
       .search = {.ws_evaluations_per_start = 175.0}},
      // Evaluations per ascent start measured with `wordsens ws --trials 1 --seed 1`
      // (docs/PERFORMANCE.md), as (evaluations / positions − 64 screened) / 4 starts: raf 63-82
      // (n = 10-50, d = 192-384), raf_relu 131-206. The attention models' head searches
      // (paper_gen.ini, 5 trials, d = 768, n = 40, 120): raf 97–124 per start (the loss
      // objective's ascents are the long ones), the others not measured (priced like raf's).
      {.traits = {.kind = ModelKind::raf,
                  .name = "raf",
                  .attention = true,
                  .min_total_sphere_starts = 32},
       .make = [](const ModelSpec& spec, WeightKey key) -> std::unique_ptr<FeatureMap> {
         if (spec.mask == AttentionMask::causal)
           return std::make_unique<TransformerFeatures>(spec, key);
         return std::make_unique<AttentionFeatures>(spec, key, AttentionKind::softmax);
       },
       .size_problem = any_size,
       .costs = []() -> const ModelCosts& {
         static const AttentionCosts costs;
         return costs;
       },
       .causal_costs = []() -> const ModelCosts& {
         static const TransformerCosts costs({false, false, false});
         return costs;
       },
       .search = {.ws_evaluations_per_start = 80.0}},
      // 42-47 % of raf_relu's ascents end at the default budget of 300 (stalled on the kinks of
      // the row-normalised ReLU), 52 % at 150: n = 150, d = 384 and n = 250, d = 768, seed
      // 20240206. Under the causal mask its ascents were not measured: priced as converging.
      {.traits = {.kind = ModelKind::raf_relu,
                  .name = "raf_relu",
                  .attention = true,
                  .min_total_sphere_starts = 32},
       .make = [](const ModelSpec& spec, WeightKey key) -> std::unique_ptr<FeatureMap> {
         if (spec.mask == AttentionMask::causal)
           return std::make_unique<TransformerFeatures>(spec, key);
         return std::make_unique<AttentionFeatures>(spec, key, AttentionKind::relu);
       },
       .size_problem = any_size,
       .costs = []() -> const ModelCosts& {
         static const AttentionCosts costs;
         return costs;
       },
       .causal_costs = []() -> const ModelCosts& {
         static const TransformerCosts costs({false, false, false});
         return costs;
       },
       .search = {.ws_evaluations_per_start = 180.0, .ws_share_at_budget = 0.45},
       .causal_search = SearchLengths{.ws_evaluations_per_start = 180.0}},
      // Beyond the paper: raf with random value and output projections. Its ascents, measured
      // like raf's: 110 evaluations per start at n = 30, d = 192 (raf 80 there).
      {.traits = {.kind = ModelKind::raf_v,
                  .name = "raf_v",
                  .attention = true,
                  .min_total_sphere_starts = 32},
       .make = [](const ModelSpec& spec, WeightKey key) -> std::unique_ptr<FeatureMap> {
         if (spec.mask == AttentionMask::causal)
           return std::make_unique<TransformerFeatures>(spec, key);
         return std::make_unique<ValueAttentionFeatures>(spec, key);
       },
       .size_problem = any_size,
       .costs = []() -> const ModelCosts& {
         static const ValueAttentionCosts costs;
         return costs;
       },
       .causal_costs = []() -> const ModelCosts& {
         static const TransformerCosts costs({false, true, false});
         return costs;
       },
       .search = {.ws_evaluations_per_start = 110.0}},
      // H heads with queries, keys, values and an output projection (transformer.hpp); a
      // pre-LayerNorm block with its residual path and an MLP of width k (mlp-width). Their
      // ascents, measured with block.ini (n = 4 … 32, d = 64): mhraf 108–130 evaluations per start,
      // block 265–290 (most of its ascents stop at the budget of 300 without gaining:
      // docs/METHOD.md §2). block's 160 prices the whole study right (2 min 27 s predicted on 2
      // ranks, 2 min 12–22 s measured): its evaluations at n = 32 run faster than half the dense
      // rate.
      {.traits = {.kind = ModelKind::mhraf,
                  .name = "mhraf",
                  .attention = true,
                  .min_total_sphere_starts = 32,
                  .multi_head = true},
       .make = [](const ModelSpec& spec, WeightKey key) -> std::unique_ptr<FeatureMap> {
         return std::make_unique<TransformerFeatures>(spec, key);
       },
       .size_problem = heads_problem,
       .costs = []() -> const ModelCosts& {
         static const TransformerCosts costs({true, true, false});
         return costs;
       },
       .search = {.ws_evaluations_per_start = 115.0}},
      {.traits = {.kind = ModelKind::block,
                  .name = "block",
                  .attention = true,
                  .min_total_sphere_starts = 32,
                  .multi_head = true,
                  .width = ModelWidth::mlp},
       .make = [](const ModelSpec& spec, WeightKey key) -> std::unique_ptr<FeatureMap> {
         return std::make_unique<TransformerFeatures>(spec, key);
       },
       .size_problem = heads_problem,
       .costs = []() -> const ModelCosts& {
         static const TransformerCosts costs({true, true, true});
         return costs;
       },
       .search = {.ws_evaluations_per_start = 160.0}},
      // Beyond the paper: layer ℓ of a pretrained encoder, its attention and the whole layer, and
      // their random twins (models/trained/trained.hpp); their weights come with the spec.
      trained_row(ModelKind::trained_attn, "trained_attn", trained_costs<TrainedPart::attention>),
      trained_row(ModelKind::twin_attn, "twin_attn", trained_costs<TrainedPart::attention>),
      trained_row(ModelKind::trained_layer, "trained_layer", trained_costs<TrainedPart::layer>),
      trained_row(ModelKind::twin_layer, "twin_layer", trained_costs<TrainedPart::layer>),
  });
  return rows;
}

const CatalogueRow& row(ModelKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  if (index >= catalogue().size() || catalogue()[index].traits.kind != kind) {
    throw std::logic_error("the model catalogue has no row for kind " + std::to_string(index));
  }
  return catalogue()[index];
}

std::unique_ptr<FeatureMap> build(const ModelSpec& spec, WeightKey key,
                                  const std::span<const Index>* positions,
                                  const std::span<const Matrix* const>* samples) {
  const CatalogueRow& entry = row(spec.kind);
  const ModelTraits& model = entry.traits;
  const std::string name(model.name);
  require_input(spec.n >= 1, name + ": n must be >= 1, got " + std::to_string(spec.n));
  require_input(spec.d >= 1, name + ": d must be >= 1, got " + std::to_string(spec.d));
  // Weight windows are addressed by 32-bit rows and columns (core/gaussian.hpp).
  require_input(spec.n * spec.d <= (Index{1} << 32), name + ": n*d exceeds 2^32");
  if (model.width != ModelWidth::none) {
    require_input(spec.k >= 1, name + ": k must be >= 1, got " + std::to_string(spec.k));
    require_input(spec.k <= (Index{1} << 32), name + ": k exceeds 2^32");
  }
  require_input(spec.activation != Activation::gelu || model.attention,
                name +
                    ": activation = gelu applies to block's MLP only (the certified bound "
                    "needs a 1-Lipschitz activation: relu or tanh)");
  require_input(spec.mask == AttentionMask::none || model.attention,
                name + ": mask = causal applies to attention models only");
  require_input(spec.sampling == RfSampling::full || model.marginal_sampler,
                name + ": rf-sampling = marginal applies to rf only");
  if (spec.sampling == RfSampling::marginal) {
    require_input(positions != nullptr, "rf: rf-sampling = marginal needs the word positions");
    if (samples != nullptr) {
      return std::make_unique<MarginalRandomFeatures>(spec, key, *positions, *samples);
    }
    return std::make_unique<MarginalRandomFeatures>(spec, key, *positions);
  }
  return entry.make(spec, key);
}

}  // namespace

std::span<const ModelTraits> all_models() {
  static const auto traits = [] {
    std::array<ModelTraits, std::tuple_size_v<std::remove_cvref_t<decltype(catalogue())>>> all{};
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = catalogue()[i].traits;
    return all;
  }();
  return traits;
}

std::unique_ptr<FeatureMap> make_feature_map(const ModelSpec& spec, WeightKey key) {
  return build(spec, key, nullptr, nullptr);
}

std::unique_ptr<FeatureMap> make_feature_map(const ModelSpec& spec, WeightKey key,
                                             std::span<const Index> positions) {
  return build(spec, key, &positions, nullptr);
}

std::unique_ptr<FeatureMap> make_feature_map(const ModelSpec& spec, WeightKey key,
                                             std::span<const Index> positions,
                                             std::span<const Matrix* const> samples) {
  return build(spec, key, &positions, &samples);
}

std::optional<std::string> model_size_problem(const ModelSpec& spec) {
  return row(spec.kind).size_problem(spec);
}

const ModelCosts& model_costs(ModelKind kind, AttentionMask mask) {
  const CatalogueRow& entry = row(kind);
  return mask == AttentionMask::causal && entry.causal_costs != nullptr ? entry.causal_costs()
                                                                        : entry.costs();
}

const SearchLengths& search_lengths(ModelKind kind, AttentionMask mask) {
  const CatalogueRow& entry = row(kind);
  return mask == AttentionMask::causal && entry.causal_search ? *entry.causal_search : entry.search;
}

}  // namespace wordsens
