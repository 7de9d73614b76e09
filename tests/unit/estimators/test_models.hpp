#pragma once
// A toy feature map for the estimator and head tests that does not depend on the real models:
// φ(X) = tanh(M vec(X)) with a stored Gaussian M (p × D), an exact evaluator and a certified
// upper bound ‖M_i‖₂·√d (tanh is 1-Lipschitz; the spectral norm comes from a full SVD).
#include <Eigen/SVD>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>

#include "core/gaussian.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens::testing {

class TanhEvaluator final : public PositionEvaluator {
 public:
  TanhEvaluator(const Matrix& M, const Matrix& X, Index position)
      : position_(position),
        block_(M.middleCols(position * X.cols(), X.cols())),
        a_(M * vec(X)),
        base_(a_.array().tanh().matrix()) {}

  [[nodiscard]] Index position() const override { return position_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }
  void features_at(const Vector& delta, Vector& out) override {
    out = (a_ + block_ * delta).array().tanh().matrix();
    last_ = out;
  }
  void pullback(const Vector& cotangent, Vector& grad) override {
    grad = block_.transpose() * (cotangent.array() * (1.0 - last_.array().square())).matrix();
  }

 private:
  Index position_;
  Matrix block_;
  Vector a_, base_, last_;
};

class TanhFeatureMap final : public FeatureMap, public CertifiedBound {
 public:
  TanhFeatureMap(Index n, Index d, Index p, std::uint32_t seed = 99, std::uint32_t task_id = 0)
      // A model of the tests, not of the catalogue: it takes rf's kind, whose searches add no
      // sphere starts (min_total_sphere_starts 0).
      : spec_{ModelKind::rf, n, d, p, 1, Activation::tanh},
        M_(GaussianMatrix({Philox(seed, Stream::weights), task_id, 0},
                          1.0 / std::sqrt(static_cast<double>(n * d)))
               .window(0, 0, p, n * d)) {}

  [[nodiscard]] const ModelSpec& spec() const override { return spec_; }
  [[nodiscard]] Index feature_dim() const override { return M_.rows(); }
  [[nodiscard]] Vector features(const Matrix& X) const override {
    ++feature_calls_;
    return (M_ * vec(X)).array().tanh().matrix();
  }
  /// How many times `features` ran (what a dense Φ costs).
  [[nodiscard]] long feature_calls() const { return feature_calls_; }
  [[nodiscard]] std::unique_ptr<PositionEvaluator> at_position(const Matrix& X,
                                                               Index position) const override {
    return std::make_unique<TanhEvaluator>(M_, X, position);
  }
  [[nodiscard]] std::optional<SensitivityBound> sensitivity_upper_bound(
      const Matrix& X) const override {
    double worst = 0.0;
    for (Index i = 0; i < spec_.n; ++i) {
      const Matrix block = M_.middleCols(i * spec_.d, spec_.d);
      worst = std::max(worst, Eigen::JacobiSVD<Matrix>(block).singularValues()(0));
    }
    return SensitivityBound{worst * std::sqrt(static_cast<double>(X.cols())),
                            BoundScope::all_positions};
  }
  [[nodiscard]] std::vector<NamedWeights> stored_weights(Index max_entries) const override {
    if (M_.size() > max_entries) return {};
    return {{"M", M_}};
  }

 private:
  ModelSpec spec_;
  Matrix M_;
  mutable std::atomic<long> feature_calls_{0};
};

}  // namespace wordsens::testing
