#include "models/bow/bow.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/gaussian.hpp"
#include "models/shared/activation.hpp"
#include "models/shared/word_set.hpp"

namespace wordsens {
namespace {

// φ(X^i(Δ)) = ϕ(a + BΔ), B = V/√n for every word i.
class BowEvaluator final : public PositionEvaluator {
 public:
  BowEvaluator(Activation act, Index position, Vector a, const Matrix& block)
      : act_(act), position_(position), a_(std::move(a)), block_(block) {
    activate(act_, a_, base_);
  }
  [[nodiscard]] Index position() const override { return position_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  void features_at(const Vector& delta, Vector& out) override {
    z_ = a_;
    z_.noalias() += block_ * delta;
    activate(act_, z_, out);
  }

  // ∇_Δ ⟨c, ϕ(a + BΔ)⟩ = Bᵀ(c ⊙ ϕ'(z)).
  void pullback(const Vector& cotangent, Vector& grad) override {
    Vector g = cotangent;
    multiply_by_derivative(act_, z_, g);
    grad.noalias() = block_.transpose() * g;
  }

 private:
  Activation act_;
  Index position_;
  Vector a_;
  const Matrix& block_;  // owned by the model, which outlives its evaluators
  Vector z_, base_;
};

}  // namespace

BagOfWordsFeatures::BagOfWordsFeatures(ModelSpec spec, WeightKey key) : spec_(std::move(spec)) {
  const Philox rng(key.master_seed, Stream::weights);
  const GaussianMatrix gen({rng, key.task_id, 0}, std::sqrt(2.0 / static_cast<double>(spec_.d)));
  V_ = gen.window(0, 0, spec_.k, spec_.d);
  block_ = V_ / std::sqrt(static_cast<double>(spec_.n));
}

Vector BagOfWordsFeatures::preactivation(const Matrix& X) const {
  check_sample(X);
  const Vector s = X.colwise().sum().transpose() / std::sqrt(static_cast<double>(spec_.n));
  return V_ * s;
}

Vector BagOfWordsFeatures::features(const Matrix& X) const {
  Vector h;
  activate(spec_.activation, preactivation(X), h);
  return h;
}

std::unique_ptr<PositionEvaluator> BagOfWordsFeatures::at_position(const Matrix& X,
                                                                   Index position) const {
  if (position < 0 || position >= spec_.n) {
    throw std::out_of_range("bow: word position " + std::to_string(position) + " outside [0, " +
                            std::to_string(spec_.n) + ")");
  }
  return std::make_unique<BowEvaluator>(spec_.activation, position, preactivation(X), block_);
}

std::unique_ptr<WordSetEvaluator> BagOfWordsFeatures::at_word_set(
    const Matrix& X, std::span<const Index> positions) const {
  check_word_set(positions, spec_.n);
  return make_first_layer_word_set(spec_.activation, {},
                                   std::vector<Index>(positions.begin(), positions.end()),
                                   preactivation(X), std::vector<Matrix>(positions.size(), block_));
}

std::vector<FeatureMap::NamedWeights> BagOfWordsFeatures::stored_weights(Index max_entries) const {
  if (V_.size() > max_entries) return {};
  return {{"V", V_}};
}

// Forward B·Δ and back Bᵀg: 2·k·d each.
double BowCosts::evaluation(const CostShape& s) const { return 4.0 * s.k * s.d; }

// The words' sum, then V s.
double BowCosts::features(const CostShape& s) const { return s.n * s.d + 2.0 * s.k * s.d; }

double BowCosts::weights(const CostShape& s) const { return generation_cost() * s.k * s.d; }

// a = V s(X) again for each position's evaluator.
double BowCosts::position_setup(const CostShape& s) const { return features(s); }

double BowCosts::sample_setup(const CostShape& /*s*/) const { return 0.0; }

double BowCosts::set_evaluation(const CostShape& s, double words) const {
  return 4.0 * s.k * s.d * words;
}

// a = V s(X) and a copy of the block per word.
double BowCosts::set_setup(const CostShape& s, const CostOptions& /*o*/, double words) const {
  return features(s) + s.k * s.d * words;
}

double BowCosts::single_point_evaluation(const CostShape& s) const { return 4.0 * s.k * s.d; }

double BowCosts::multi_word_growth(double /*words*/) const { return 1.0; }

// V and its block V/√n (k × d each), and a copy of the block per word of a set.
double BowCosts::ws_memory(const CostShape& s, const CostOptions& /*o*/,
                           const SearchShape& q) const {
  return 8.0 * s.k * s.d * (2.0 + q.words);
}

}  // namespace wordsens
