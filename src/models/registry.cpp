// make_feature_map (feature_map.hpp) and model_costs (model_costs.hpp): the one
// place that maps model kinds (model_kind.hpp) to classes and validates sizes.
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "models/attention/attention.hpp"
#include "models/attention/attention_costs.hpp"
#include "models/drf/drf.hpp"
#include "models/drf/drf_costs.hpp"
#include "models/rf/rf.hpp"
#include "models/rf/rf_costs.hpp"
#include "models/rf/rf_marginal.hpp"
#include "models/shared/feature_map.hpp"
#include "models/shared/model_costs.hpp"
#include "models/shared/model_kind.hpp"

namespace wordsens {

namespace {

std::unique_ptr<FeatureMap> build(const ModelSpec& spec, WeightKey key,
                                  const std::span<const Index>* positions,
                                  const std::span<const Matrix* const>* samples) {
  const ModelTraits& model = traits(spec.kind);
  const std::string name(model.name);
  require_input(spec.n >= 1, name + ": n must be >= 1, got " + std::to_string(spec.n));
  require_input(spec.d >= 1, name + ": d must be >= 1, got " + std::to_string(spec.d));
  // Weight windows are addressed by 32-bit rows and columns (core/gaussian.hpp).
  require_input(spec.n * spec.d <= (Index{1} << 32), name + ": n*d exceeds 2^32");
  if (!model.attention) {
    require_input(spec.k >= 1, name + ": k must be >= 1, got " + std::to_string(spec.k));
    require_input(spec.k <= (Index{1} << 32), name + ": k exceeds 2^32");
  }
  require_input(spec.sampling == RfSampling::full || model.marginal_sampler,
                name + ": rf-sampling = marginal applies to rf only");
  if (spec.sampling == RfSampling::marginal) {
    require_input(positions != nullptr, "rf: rf-sampling = marginal needs the word positions");
    if (samples != nullptr) {
      return std::make_unique<MarginalRandomFeatures>(spec, key, *positions, *samples);
    }
    return std::make_unique<MarginalRandomFeatures>(spec, key, *positions);
  }
  switch (model.kind) {
    case ModelKind::rf:
      return std::make_unique<RandomFeatures>(spec, key);
    case ModelKind::drf:
      require_input(spec.layers >= 1,
                    "drf: layers must be >= 1, got " + std::to_string(spec.layers));
      return std::make_unique<DeepRandomFeatures>(spec, key);
    case ModelKind::raf:
      return std::make_unique<AttentionFeatures>(spec, key, AttentionKind::softmax);
    case ModelKind::raf_relu:
      return std::make_unique<AttentionFeatures>(spec, key, AttentionKind::relu);
  }
  throw std::logic_error("make_feature_map: a model kind without a class");
}

}  // namespace

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
  switch (spec.kind) {
    case ModelKind::drf:
      return DeepRandomFeatures::size_problem(spec);
    case ModelKind::rf:
    case ModelKind::raf:
    case ModelKind::raf_relu:
      return std::nullopt;  // their weights are generated in blocks or are d × d
  }
  return std::nullopt;
}

const ModelCosts& model_costs(ModelKind kind) {
  // Evaluations per ascent start measured with `wordsens ws --trials 1 --seed 1`
  // (docs/PERFORMANCE.md), as (evaluations / positions − 64 screened) / 4 starts: raf 63-82
  // (n = 10-50, d = 192-384), raf_relu 131-206.
  static const RfCosts rf;
  static const DrfCosts drf;
  static const AttentionCosts raf(80.0), raf_relu(180.0);
  switch (kind) {
    case ModelKind::rf:
      return rf;
    case ModelKind::drf:
      return drf;
    case ModelKind::raf:
      return raf;
    case ModelKind::raf_relu:
      return raf_relu;
  }
  throw std::logic_error("model_costs: a model kind without costs");
}

}  // namespace wordsens
