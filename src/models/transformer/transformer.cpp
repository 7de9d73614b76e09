#include "models/transformer/transformer.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/errors.hpp"
#include "core/gaussian.hpp"
#include "models/shared/word_set.hpp"

namespace wordsens {
namespace {

// The weight stream's matrix of each role (transformer.hpp).
enum WeightMatrix : std::uint32_t {
  kScores = 0,
  kValue = 1,
  kOutput = 2,
  kQuery = 3,
  kKey = 4,
  kMlpIn = 5,
  kMlpOut = 6
};

Matrix weights(const WeightKey& key, WeightMatrix matrix, Index rows, Index cols, double variance) {
  const GaussianMatrix gen({Philox(key.master_seed, Stream::weights), key.task_id, matrix},
                           std::sqrt(variance));
  return gen.window(0, 0, rows, cols);
}

/// 1/E ϕ(g)² for g ~ N(0, 1): W2's variance times k, so that the MLP keeps a row's norm
/// (E tanh(g)² = 0.394294, E GELU(g)² = 0.425221, by quadrature).
double mlp_gain(Activation activation) {
  switch (activation) {
    case Activation::relu:
      return 2.0;
    case Activation::tanh:
      return 1.0 / 0.3942944903978409;
    case Activation::gelu:
      return 1.0 / 0.4252214825702987;
  }
  return 2.0;
}

// One text and the words it moves: the evaluator of both interfaces.
class MovedRows {
 public:
  MovedRows(const TransformerLayer& layer, const Matrix& X, std::vector<Index> rows)
      : layer_(layer), X_(X), rows_(std::move(rows)) {
    transformer_forward(layer_, X_, pass_);
    base_ = vec(pass_.out);
  }
  [[nodiscard]] std::span<const Index> rows() const { return rows_; }
  [[nodiscard]] Index d() const { return X_.cols(); }
  [[nodiscard]] const Vector& base() const { return base_; }

  /// out ← φ(X^M(Δ)), Δ the moves of the rows stacked (m·d).
  void features_at(const Eigen::Ref<const Vector>& delta, Vector& out) {
    const Index d = X_.cols();
    for (std::size_t j = 0; j < rows_.size(); ++j) {
      const Index r = rows_[j];
      pass_.X.row(r) = X_.row(r) + delta.segment(static_cast<Index>(j) * d, d).transpose();
    }
    transformer_forward_moved(layer_, rows_, pass_);
    out = vec(pass_.out);
  }

  /// grad ← ∇_Δ ⟨c, φ(X^M(Δ))⟩ at the latest features_at.
  void pullback(const Vector& cotangent, Vector& grad) {
    const Index n = X_.rows(), d = X_.cols();
    transformer_backward(layer_, pass_, Eigen::Map<const Matrix>(cotangent.data(), n, d), rows_,
                         grad_rows_, scratch_);
    grad = vec(grad_rows_);
  }

 private:
  const TransformerLayer& layer_;  // the model's, which outlives its evaluators
  Matrix X_;
  std::vector<Index> rows_;
  TransformerPass pass_;
  TransformerBackwardScratch scratch_;
  Vector base_;
  Matrix grad_rows_;
};

class TransformerPosition final : public PositionEvaluator {
 public:
  TransformerPosition(const TransformerLayer& layer, const Matrix& X, Index position)
      : moved_(layer, X, {position}) {}
  [[nodiscard]] Index position() const override { return moved_.rows().front(); }
  [[nodiscard]] const Vector& base_features() const override { return moved_.base(); }
  void features_at(const Vector& delta, Vector& out) override { moved_.features_at(delta, out); }
  void pullback(const Vector& cotangent, Vector& grad) override {
    moved_.pullback(cotangent, grad);
  }

 private:
  MovedRows moved_;
};

class TransformerWordSet final : public WordSetEvaluator {
 public:
  TransformerWordSet(const TransformerLayer& layer, const Matrix& X, std::vector<Index> positions)
      : moved_(layer, X, std::move(positions)) {}
  [[nodiscard]] std::span<const Index> positions() const override { return moved_.rows(); }
  [[nodiscard]] const Vector& base_features() const override { return moved_.base(); }

  void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) override {
    const Index expected = static_cast<Index>(moved_.rows().size()) * moved_.d();
    if (deltas.rows() != expected) {
      throw std::invalid_argument("word set: points have " + std::to_string(deltas.rows()) +
                                  " coordinates, expected " + std::to_string(expected));
    }
    values.resize(deltas.cols());
    if (grads != nullptr) grads->resize(expected, deltas.cols());
    for (Index b = 0; b < deltas.cols(); ++b) {
      moved_.features_at(deltas.col(b), phi_);
      residual_ = phi_ - moved_.base();
      values(b) = residual_.squaredNorm();
      if (grads == nullptr) continue;
      residual_ *= 2.0;
      moved_.pullback(residual_, grad_);
      grads->col(b) = grad_;
    }
  }

 private:
  MovedRows moved_;
  Vector phi_, residual_, grad_;
};

}  // namespace

TransformerLayer transformer_layer(const ModelSpec& spec, WeightKey key) {
  const Index d = spec.d;
  const double unit = 1.0 / static_cast<double>(d);
  TransformerLayer layer;
  layer.mask = spec.mask;
  layer.activation = spec.activation;
  switch (spec.kind) {
    case ModelKind::raf:
    case ModelKind::raf_relu:
    case ModelKind::raf_v:
      layer.rows = spec.kind == ModelKind::raf_relu ? AttentionKind::relu : AttentionKind::softmax;
      layer.Q = weights(key, kScores, d, d, unit);
      if (spec.kind == ModelKind::raf_v) {
        layer.V = weights(key, kValue, d, d, unit);
        layer.O = weights(key, kOutput, d, d, unit);
      }
      break;
    case ModelKind::mhraf:
    case ModelKind::block: {
      const std::string name = to_string(spec.kind);
      require_input(spec.heads >= 1 && d % spec.heads == 0,
                    name + ": heads = " + std::to_string(spec.heads) +
                        " must divide d = " + std::to_string(d));
      layer.heads = spec.heads;
      layer.Q = weights(key, kQuery, d, d, unit);
      layer.K = weights(key, kKey, d, d, unit);
      layer.V = weights(key, kValue, d, d, unit);
      layer.O = weights(key, kOutput, d, d, unit);
      if (spec.kind == ModelKind::block) {
        const Index k = spec.k;
        require_input(k >= 1, name + ": the MLP width k must be >= 1, got " + std::to_string(k));
        layer.pre_norm = true;
        layer.residual = true;
        layer.W1 = weights(key, kMlpIn, d, k, unit);
        layer.W2 = weights(key, kMlpOut, k, d, mlp_gain(spec.activation) / static_cast<double>(k));
      }
      break;
    }
    default:
      throw std::logic_error("transformer_layer: " + to_string(spec.kind) +
                             " is not of the transformer family");
  }
  return layer;
}

TransformerFeatures::TransformerFeatures(ModelSpec spec, WeightKey key)
    : TransformerFeatures(spec, transformer_layer(spec, key)) {}

TransformerFeatures::TransformerFeatures(ModelSpec spec, TransformerLayer layer)
    : spec_(std::move(spec)), layer_(std::move(layer)) {
  layer_.check();
  if (layer_.d() != spec_.d) throw std::invalid_argument("transformer: the layer is not d x d");
}

Vector TransformerFeatures::features(const Matrix& X) const {
  check_sample(X);
  TransformerPass pass;
  transformer_forward(layer_, X, pass);
  return vec(pass.out);
}

std::unique_ptr<PositionEvaluator> TransformerFeatures::at_position(const Matrix& X,
                                                                    Index position) const {
  check_sample(X);
  if (position < 0 || position >= X.rows()) {
    throw std::out_of_range("transformer: position " + std::to_string(position) + " out of range");
  }
  return std::make_unique<TransformerPosition>(layer_, X, position);
}

std::unique_ptr<WordSetEvaluator> TransformerFeatures::at_word_set(
    const Matrix& X, std::span<const Index> positions) const {
  check_sample(X);
  check_word_set(positions, X.rows());
  return std::make_unique<TransformerWordSet>(
      layer_, X, std::vector<Index>(positions.begin(), positions.end()));
}

std::vector<FeatureMap::NamedWeights> TransformerFeatures::stored_weights(Index max_entries) const {
  const bool keys = layer_.K.size() > 0;
  std::vector<NamedWeights> out;
  const auto add = [&out](const char* name, const Matrix& M) {
    if (M.size() > 0) out.push_back({name, M});
  };
  add(keys ? "WQ" : "W", layer_.Q);
  add("WK", layer_.K);
  add("WV", layer_.V);
  add("WO", layer_.O);
  add("W1", layer_.W1);
  add("W2", layer_.W2);
  Index entries = 0;
  for (const auto& w : out) entries += w.values.size();
  if (entries > max_entries) return {};
  return out;
}

}  // namespace wordsens
