#include "models/attention/value_attention.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/gaussian.hpp"
#include "models/attention/attention_word_set.hpp"
#include "models/shared/word_set.hpp"

namespace wordsens {
namespace {

ModelSpec as_raf(ModelSpec spec) {
  spec.kind = ModelKind::raf;
  return spec;
}

Matrix projection_matrix(const WeightKey& key, Index d, std::uint32_t matrix) {
  const GaussianMatrix gen({Philox(key.master_seed, Stream::weights), key.task_id, matrix},
                           std::sqrt(1.0 / static_cast<double>(d)));
  return gen.window(0, 0, d, d);
}

/// out ← vec(Y P) for Y = the n × d rows of `rows` (row-major, as vec(X)).
void project(const Vector& rows, const Matrix& P, Index n, Vector& out) {
  out.resize(rows.size());
  const Index d = P.rows();
  Eigen::Map<Matrix>(out.data(), n, d).noalias() = Eigen::Map<const Matrix>(rows.data(), n, d) * P;
}

/// out ← vec(C Pᵀ): a cotangent of φ = vec(Y P) pulled back to Y.
void project_back(const Vector& cotangent, const Matrix& P, Index n, Vector& out) {
  out.resize(cotangent.size());
  const Index d = P.rows();
  Eigen::Map<Matrix>(out.data(), n, d).noalias() =
      Eigen::Map<const Matrix>(cotangent.data(), n, d) * P.transpose();
}

// φ(X^i(Δ)) = vec(A'X' P) from raf's evaluator of A'X'.
class ProjectedEvaluator final : public PositionEvaluator {
 public:
  ProjectedEvaluator(std::unique_ptr<PositionEvaluator> attended, const Matrix& P, Index n)
      : attended_(std::move(attended)), P_(P), n_(n) {
    project(attended_->base_features(), P_, n_, base_);
  }
  [[nodiscard]] Index position() const override { return attended_->position(); }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  void features_at(const Vector& delta, Vector& out) override {
    attended_->features_at(delta, attended_features_);
    project(attended_features_, P_, n_, out);
  }

  void pullback(const Vector& cotangent, Vector& grad) override {
    project_back(cotangent, P_, n_, attended_cotangent_);
    attended_->pullback(attended_cotangent_, grad);
  }

 private:
  std::unique_ptr<PositionEvaluator> attended_;
  const Matrix& P_;  // owned by the model, which outlives its evaluators
  Index n_;
  Vector base_, attended_features_, attended_cotangent_;
};

}  // namespace

ValueAttentionFeatures::ValueAttentionFeatures(ModelSpec spec, WeightKey key)
    : ValueAttentionFeatures(spec, key, projection_matrix(key, spec.d, 1),
                             projection_matrix(key, spec.d, 2)) {}

ValueAttentionFeatures::ValueAttentionFeatures(ModelSpec spec, WeightKey key, Matrix value,
                                               Matrix output)
    : spec_(std::move(spec)),
      attention_(as_raf(spec_), key, AttentionKind::softmax),
      value_(std::move(value)),
      output_(std::move(output)) {
  if (value_.rows() != spec_.d || value_.cols() != spec_.d || output_.rows() != spec_.d ||
      output_.cols() != spec_.d) {
    throw std::invalid_argument("raf_v: projections must be d x d");
  }
  projection_ = value_ * output_;
}

Vector ValueAttentionFeatures::features(const Matrix& X) const {
  check_sample(X);
  Vector out;
  project(attention_.features(X), projection_, spec_.n, out);
  return out;
}

std::unique_ptr<PositionEvaluator> ValueAttentionFeatures::at_position(const Matrix& X,
                                                                       Index position) const {
  check_sample(X);
  return std::make_unique<ProjectedEvaluator>(attention_.at_position(X, position), projection_,
                                              spec_.n);
}

std::unique_ptr<WordSetEvaluator> ValueAttentionFeatures::at_word_set(
    const Matrix& X, std::span<const Index> positions) const {
  check_sample(X);
  return make_attention_word_set_from_scratch(
      X, attention_.W(), AttentionKind::softmax,
      std::vector<Index>(positions.begin(), positions.end()), &projection_);
}

std::optional<Vector> ValueAttentionFeatures::guided_direction(const Matrix& X,
                                                               Index position) const {
  return attention_.guided_direction(X, position);
}

std::vector<Vector> ValueAttentionFeatures::guided_directions(const Matrix& X,
                                                              Index position) const {
  return attention_.guided_directions(X, position);
}

std::vector<FeatureMap::NamedWeights> ValueAttentionFeatures::stored_weights(
    Index max_entries) const {
  if (3 * value_.size() > max_entries) return {};
  return {{"W", attention_.W()}, {"WV", value_}, {"WO", output_}};
}

}  // namespace wordsens
