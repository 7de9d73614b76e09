#include "models/shared/feature_map.hpp"

#include <stdexcept>
#include <string>

namespace wordsens {

void FeatureMap::check_sample(const Matrix& X) const {
  const ModelSpec& s = spec();
  if (X.rows() != s.n || X.cols() != s.d) {
    throw std::invalid_argument(std::string(traits(s.kind).name) + ": sample is " +
                                std::to_string(X.rows()) + "x" + std::to_string(X.cols()) +
                                ", model expects " + std::to_string(s.n) + "x" +
                                std::to_string(s.d));
  }
}

void PositionEvaluator::sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) {
  const Vector& phi = base_features();
  values.resize(deltas.cols());
  if (grads != nullptr) grads->resize(deltas.rows(), deltas.cols());
  phi_scratch_.resize(phi.size());
  Vector delta(deltas.rows());
  for (Index b = 0; b < deltas.cols(); ++b) {
    delta = deltas.col(b);
    features_at(delta, phi_scratch_);
    // f from the stored cotangent 2(φ' − φ) with or without ∇f: scaling by 2 and by 1/4 is
    // exact, so f is ‖φ' − φ‖², and both calls give the same number (a norm of the expression
    // φ' − φ reduces in another order for some sizes, one ulp apart).
    residual_scratch_ = 2.0 * (phi_scratch_ - phi);
    values(b) = 0.25 * residual_scratch_.squaredNorm();
    if (grads == nullptr) continue;
    pullback(residual_scratch_, grad_scratch_);
    grads->col(b) = grad_scratch_;
  }
}

void PositionEvaluator::linear_readouts(const Matrix& deltas,
                                        std::span<const Vector* const> readouts, Vector& values,
                                        Matrix* grads) {
  if (static_cast<Index>(readouts.size()) != deltas.cols()) {
    throw std::invalid_argument("linear_readouts: one read-out vector per column expected");
  }
  values.resize(deltas.cols());
  if (grads != nullptr) grads->resize(deltas.rows(), deltas.cols());
  phi_scratch_.resize(base_features().size());
  Vector delta(deltas.rows());
  for (Index b = 0; b < deltas.cols(); ++b) {
    const Vector& v = *readouts[static_cast<std::size_t>(b)];
    delta = deltas.col(b);
    features_at(delta, phi_scratch_);
    values(b) = phi_scratch_.dot(v);
    if (grads == nullptr) continue;
    pullback(v, grad_scratch_);
    grads->col(b) = grad_scratch_;
  }
}

void PositionGroup::sensitivity_objective(std::span<const Index> slots, const Matrix& deltas,
                                          Vector& values, Matrix* grads) {
  if (static_cast<Index>(slots.size()) != deltas.cols()) {
    throw std::invalid_argument("position group: one slot per column expected");
  }
  values.resize(deltas.cols());
  if (grads != nullptr) grads->resize(deltas.rows(), deltas.cols());
  Vector slot_values;
  Matrix slot_grads;
  for (Index slot = 0; slot < size(); ++slot) {
    std::vector<Index> mine;
    for (Index c = 0; c < deltas.cols(); ++c) {
      if (slots[static_cast<std::size_t>(c)] == slot) mine.push_back(c);
    }
    if (mine.empty()) continue;
    const Matrix slot_deltas = deltas(Eigen::all, mine);
    evaluator(slot).sensitivity_objective(slot_deltas, slot_values,
                                          grads != nullptr ? &slot_grads : nullptr);
    for (std::size_t m = 0; m < mine.size(); ++m) {
      values(mine[m]) = slot_values(static_cast<Index>(m));
      if (grads != nullptr) grads->col(mine[m]) = slot_grads.col(static_cast<Index>(m));
    }
  }
}

std::unique_ptr<PositionGroup> FeatureMap::at_positions(const Matrix& X,
                                                        std::span<const Index> positions) const {
  std::vector<std::unique_ptr<PositionEvaluator>> evaluators;
  evaluators.reserve(positions.size());
  for (const Index position : positions) evaluators.push_back(at_position(X, position));
  return std::make_unique<PositionGroup>(std::move(evaluators));
}

Index FeatureMap::positions_per_group(Index /*points*/, Index /*per_position*/) const { return 1; }

std::vector<Vector> GuidedStarts::guided_directions(const Matrix& X, Index position) const {
  if (auto direction = guided_direction(X, position)) return {std::move(*direction)};
  return {};
}

std::vector<Vector> GuidedStarts::guided_points(const Matrix& /*X*/, Index /*position*/) const {
  return {};
}

std::optional<SensitivityBound> WordSets::word_set_upper_bound(
    const Matrix& /*X*/, std::span<const std::vector<Index>> /*sets*/) const {
  return std::nullopt;
}

PlainRecomputation FeatureMap::recompute_plain(std::span<const Matrix> samples,
                                               bool want_bound) const {
  PlainRecomputation out;
  out.features.reserve(samples.size());
  for (const Matrix& X : samples) out.features.push_back(features(X));
  const CertifiedBound* bounded = certified_bound(*this);
  if (want_bound && bounded != nullptr && !samples.empty()) {
    out.bound = bounded->sensitivity_upper_bound(samples.front());
  }
  return out;
}

Matrix FeatureMap::feature_matrix(std::span<const Matrix> samples) const {
  Matrix phi(static_cast<Index>(samples.size()), feature_dim());
  for (std::size_t m = 0; m < samples.size(); ++m) {
    phi.row(static_cast<Index>(m)) = features(samples[m]).transpose();
  }
  return phi;
}

Matrix gram_of_rows(const Matrix& phi) {
  Matrix K = Matrix::Zero(phi.rows(), phi.rows());
  K.selfadjointView<Eigen::Lower>().rankUpdate(phi);
  return K.selfadjointView<Eigen::Lower>();
}

const StreamedFeatures* streamed_features(const FeatureMap& model) {
  return dynamic_cast<const StreamedFeatures*>(&model);
}

const WordSets* word_sets(const FeatureMap& model) { return dynamic_cast<const WordSets*>(&model); }

const WordSets& require_word_sets(const FeatureMap& model) {
  if (const WordSets* sets = word_sets(model)) return *sets;
  throw std::invalid_argument(std::string(traits(model.spec().kind).name) +
                              ": several changed words (--words > 1) are not available for this "
                              "model or sampler");
}

const CertifiedBound* certified_bound(const FeatureMap& model) {
  return dynamic_cast<const CertifiedBound*>(&model);
}

const GuidedStarts* guided_starts(const FeatureMap& model) {
  return dynamic_cast<const GuidedStarts*>(&model);
}

}  // namespace wordsens
