#include "models/attention/attention.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/gaussian.hpp"
#include "core/symmetric_eigen.hpp"
#include "models/attention/attention_batch.hpp"
#include "models/attention/attention_word_set.hpp"
#include "models/attention/relu_floor.hpp"

namespace wordsens {

AttentionFeatures::AttentionFeatures(ModelSpec spec, WeightKey key, AttentionKind kind)
    : spec_(std::move(spec)), kind_(kind) {
  const GaussianMatrix gen({Philox(key.master_seed, Stream::weights), key.task_id, 0},
                           std::sqrt(1.0 / static_cast<double>(spec_.d)));
  W_ = gen.window(0, 0, spec_.d, spec_.d);
}

Vector AttentionFeatures::features_with(const Matrix& X, const Matrix& W, AttentionKind kind) {
  const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(X.cols()));
  const Matrix S = (X * W) * X.transpose() * inv_sqrt_d;
  const Matrix Y = normalise_scores(S, kind) * X;
  return vec(Y);  // row-major: y_1, …, y_n
}

std::unique_ptr<WordSetEvaluator> AttentionFeatures::at_word_set(
    const Matrix& X, std::span<const Index> positions) const {
  check_sample(X);
  return make_attention_word_set(
      X, W_, kind_, std::vector<Index>(positions.begin(), positions.end()), sample_products(X));
}

Vector AttentionFeatures::features(const Matrix& X) const {
  check_sample(X);
  return features_with(X, W_, kind_);
}

std::unique_ptr<PositionEvaluator> AttentionFeatures::at_position(const Matrix& X,
                                                                  Index position) const {
  check_sample(X);
  return make_attention_evaluator(X, W_, kind_, position, sample_products(X));
}

namespace {

/// Every column's position data in one attention_sensitivity_objective call.
class AttentionPositionGroup final : public PositionGroup {
 public:
  explicit AttentionPositionGroup(std::vector<std::unique_ptr<PositionEvaluator>> evaluators)
      : PositionGroup(std::move(evaluators)) {
    for (Index slot = 0; slot < size(); ++slot) {
      data_.push_back(&dynamic_cast<const AttentionBatchSource&>(evaluator(slot)).batch_data());
    }
  }

  void sensitivity_objective(std::span<const Index> slots, const Matrix& deltas, Vector& values,
                             Matrix* grads) override {
    columns_.clear();
    for (const Index slot : slots) columns_.push_back(data_.at(static_cast<std::size_t>(slot)));
    attention_sensitivity_objective(columns_, deltas, values, grads, scratch_);
  }

 private:
  std::vector<const AttentionBatchData*> data_;
  std::vector<const AttentionBatchData*> columns_;
  AttentionBatchScratch scratch_;
};

}  // namespace

std::unique_ptr<PositionGroup> AttentionFeatures::at_positions(
    const Matrix& X, std::span<const Index> positions) const {
  check_sample(X);
  const auto products = sample_products(X);
  std::vector<std::unique_ptr<PositionEvaluator>> evaluators;
  for (const Index position : positions) {
    evaluators.push_back(make_attention_evaluator(X, W_, kind_, position, products));
  }
  return std::make_unique<AttentionPositionGroup>(std::move(evaluators));
}

Index AttentionFeatures::positions_per_group(Index points, Index per_position) const {
  return std::max<Index>(1, (points + per_position - 1) / std::max<Index>(per_position, 1));
}

std::shared_ptr<const AttentionSampleProducts> AttentionFeatures::sample_products(
    const Matrix& X) const {
  {
    const std::lock_guard<std::mutex> lock(products_mutex_);
    if (products_ && products_sample_.rows() == X.rows() && products_sample_.cols() == X.cols() &&
        products_sample_ == X) {
      return products_;
    }
  }
  // Computed outside the lock; a concurrent duplicate is harmless (the same numbers).
  auto products = attention_sample_products(X, W_);
  const std::lock_guard<std::mutex> lock(products_mutex_);
  products_sample_ = X;
  products_ = products;
  return products;
}

std::optional<Vector> AttentionFeatures::guided_direction(const Matrix& X,
                                                          Index /*position*/) const {
  check_sample(X);
  return Vector(W_.transpose() * X.colwise().sum().transpose());
}

const Vector& AttentionFeatures::symmetric_top_eigenvector() const {
  const std::lock_guard<std::mutex> lock(eigen_mutex_);
  if (!symmetric_top_) {
    // Column-major, as the solver always took it (the row-major one rounds differently).
    const Eigen::MatrixXd symmetric = 0.5 * (W_ + W_.transpose());
    symmetric_top_ = symmetric_eigen(symmetric).vectors.col(spec_.d - 1);
  }
  return *symmetric_top_;
}

std::vector<Vector> AttentionFeatures::guided_directions(const Matrix& X, Index position) const {
  std::vector<Vector> directions = GuidedStarts::guided_directions(X, position);
  const Vector& v = symmetric_top_eigenvector();
  directions.push_back(v.dot(X.row(position).transpose()) >= 0.0 ? v : Vector(-v));
  return directions;
}

std::vector<Vector> AttentionFeatures::guided_points(const Matrix& X, Index position) const {
  check_sample(X);
  if (kind_ != AttentionKind::relu || X.rows() - 1 >= X.cols()) return {};
  const auto products = sample_products(X);
  std::shared_ptr<const Matrix> gram;
  {
    const std::lock_guard<std::mutex> lock(floor_mutex_);
    if (floor_products_ != products) {
      floor_gram_ = std::make_shared<const Matrix>(relu_floor_gram(products->XWt));
      floor_products_ = products;
    }
    gram = floor_gram_;
  }
  return relu_floor_starts(X, products->XWt, *gram, products->S, position, kReluFloorCandidates);
}

std::vector<FeatureMap::NamedWeights> AttentionFeatures::stored_weights(Index max_entries) const {
  if (W_.size() > max_entries) return {};
  return {{"W", W_}};
}

}  // namespace wordsens
