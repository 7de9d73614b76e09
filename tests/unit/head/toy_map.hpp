#pragma once
// A small exact feature map for the head's tests, independent of the real models:
// φ(X) = tanh(M vec(X)) with a stored M ∈ R^{p×D}. Its position evaluator is exact.
#include <cmath>

#include "core/gaussian.hpp"
#include "models/feature_map.hpp"

namespace wordsens::testing {

class ToyMap final : public FeatureMap {
 public:
  ToyMap(Index n, Index d, Index p, std::uint32_t seed = 99) {
    spec_.name = "toy";
    spec_.n = n;
    spec_.d = d;
    spec_.k = p;
    const GaussianMatrix g({Philox(seed, Stream::weights), 0, 0},
                           1.0 / std::sqrt(static_cast<double>(n * d)));
    M_ = g.window(0, 0, p, n * d);
  }
  const ModelSpec& spec() const override { return spec_; }
  Index feature_dim() const override { return M_.rows(); }
  Vector features(const Matrix& X) const override { return (M_ * vec(X)).array().tanh().matrix(); }
  std::unique_ptr<PositionEvaluator> at_position(const Matrix& X, Index i) const override {
    return std::make_unique<Evaluator>(*this, X, i);
  }
  const Matrix& weights() const { return M_; }

 private:
  class Evaluator final : public PositionEvaluator {
   public:
    Evaluator(const ToyMap& map, const Matrix& X, Index i)
        : i_(i), a_(map.M_ * vec(X)), B_(map.M_.middleCols(i * X.cols(), X.cols())) {
      base_ = a_.array().tanh().matrix();
    }
    Index position() const override { return i_; }
    const Vector& base_features() const override { return base_; }
    void features_at(const Vector& delta, Vector& out) override {
      out = (a_ + B_ * delta).array().tanh().matrix();
      last_ = out;
    }
    void pullback(const Vector& c, Vector& grad) override {
      grad = B_.transpose() * (c.array() * (1.0 - last_.array().square())).matrix();
    }

   private:
    Index i_;
    Vector a_, base_, last_;
    Matrix B_;
  };

  ModelSpec spec_;
  Matrix M_;
};

}  // namespace wordsens::testing
