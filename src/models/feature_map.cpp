#include "models/feature_map.hpp"

namespace wordsens {

std::optional<Vector> FeatureMap::guided_direction(const Matrix& /*X*/, Index /*position*/) const {
  return std::nullopt;
}

std::vector<Vector> FeatureMap::guided_directions(const Matrix& X, Index position) const {
  if (auto direction = guided_direction(X, position)) return {std::move(*direction)};
  return {};
}

std::optional<SensitivityBound> FeatureMap::sensitivity_upper_bound(const Matrix& /*X*/) const {
  return std::nullopt;
}

PlainRecomputation FeatureMap::recompute_plain(std::span<const Matrix> samples,
                                               bool want_bound) const {
  PlainRecomputation out;
  out.features.reserve(samples.size());
  for (const Matrix& X : samples) out.features.push_back(features(X));
  if (want_bound && !samples.empty()) out.bound = sensitivity_upper_bound(samples.front());
  return out;
}

Matrix FeatureMap::feature_matrix(std::span<const Matrix> samples) const {
  Matrix phi(static_cast<Index>(samples.size()), feature_dim());
  for (std::size_t m = 0; m < samples.size(); ++m) {
    phi.row(static_cast<Index>(m)) = features(samples[m]).transpose();
  }
  return phi;
}

Matrix FeatureMap::gram(std::span<const Matrix> samples) const {
  const Matrix phi = feature_matrix(samples);
  // Symmetric rank update (SYRK): half the flops of a general product, exactly symmetric.
  Matrix K = Matrix::Zero(phi.rows(), phi.rows());
  K.selfadjointView<Eigen::Lower>().rankUpdate(phi);
  return K.selfadjointView<Eigen::Lower>();
}

Matrix FeatureMap::transpose_apply(std::span<const Matrix> samples, const Matrix& C) const {
  return feature_matrix(samples).transpose() * C;
}

}  // namespace wordsens
