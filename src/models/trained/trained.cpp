#include "models/trained/trained.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/errors.hpp"
#include "core/gaussian.hpp"
#include "models/shared/word_set.hpp"
#include "models/trained/trained_attention_update.hpp"

namespace wordsens {
namespace {

// The twin's matrices in the task's weight stream, numbered as the transformer family numbers
// the same roles (models/transformer/transformer.hpp): W_V 1, W_O 2, W_Q 3, W_K 4, W₁ 5, W₂ 6.
enum TwinMatrix : std::uint32_t {
  kValue = 1,
  kOutput = 2,
  kQuery = 3,
  kKey = 4,
  kFeedIn = 5,
  kFeedOut = 6
};

Matrix redrawn(const Matrix& trained, WeightKey key, TwinMatrix id) {
  const double entries = static_cast<double>(trained.size());
  const GaussianMatrix gen({Philox(key.master_seed, Stream::weights), key.task_id, id},
                           trained.norm() / std::sqrt(entries));
  return gen.window(0, 0, trained.rows(), trained.cols());
}

struct KindParts {
  TrainedPart part;
  bool twin;
};

KindParts parts_of(ModelKind kind) {
  switch (kind) {
    case ModelKind::trained_attn:
      return {TrainedPart::attention, false};
    case ModelKind::twin_attn:
      return {TrainedPart::attention, true};
    case ModelKind::trained_layer:
      return {TrainedPart::layer, false};
    case ModelKind::twin_layer:
      return {TrainedPart::layer, true};
    default:
      throw std::logic_error("make_trained_features: " + to_string(kind) +
                             " is not of the trained family");
  }
}

// One text and the words it moves, evaluated by the plain pass: the word-set evaluator.
class MovedRows final : public WordSetEvaluator {
 public:
  MovedRows(const EncoderLayer& layer, TrainedPart part, const Matrix& X, std::vector<Index> rows)
      : layer_(layer), part_(part), X_(X), rows_(std::move(rows)) {
    trained_forward(layer_, part_, X_, pass_);
    base_ = vec(pass_.out);
  }
  [[nodiscard]] std::span<const Index> positions() const override { return rows_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) override {
    const Index n = X_.rows(), d = X_.cols();
    const Index expected = static_cast<Index>(rows_.size()) * d;
    if (deltas.rows() != expected) {
      throw std::invalid_argument("word set: points have " + std::to_string(deltas.rows()) +
                                  " coordinates, expected " + std::to_string(expected));
    }
    values.resize(deltas.cols());
    if (grads != nullptr) grads->resize(expected, deltas.cols());
    for (Index b = 0; b < deltas.cols(); ++b) {
      for (std::size_t j = 0; j < rows_.size(); ++j) {
        const Index r = rows_[j];
        pass_.U.row(r) =
            X_.row(r) + deltas.col(b).segment(static_cast<Index>(j) * d, d).transpose();
      }
      trained_forward_moved(layer_, part_, rows_, pass_);
      residual_ = pass_.out - Eigen::Map<const Matrix>(base_.data(), n, d);
      values(b) = residual_.squaredNorm();
      if (grads == nullptr) continue;
      residual_ *= 2.0;
      trained_backward(layer_, part_, pass_, residual_, rows_, grad_rows_, scratch_);
      grads->col(b) = vec(grad_rows_);
    }
  }

 private:
  const EncoderLayer& layer_;  // the model's, which outlives its evaluators
  TrainedPart part_;
  Matrix X_;
  std::vector<Index> rows_;
  TrainedPass pass_;
  TrainedBackwardScratch scratch_;
  Vector base_;
  Matrix residual_, grad_rows_;
};

}  // namespace

EncoderLayer random_twin(const EncoderLayer& trained, WeightKey key) {
  EncoderLayer twin = trained;
  twin.WQ = redrawn(trained.WQ, key, kQuery);
  twin.WK = redrawn(trained.WK, key, kKey);
  twin.WV = redrawn(trained.WV, key, kValue);
  twin.WO = redrawn(trained.WO, key, kOutput);
  twin.W1 = redrawn(trained.W1, key, kFeedIn);
  twin.W2 = redrawn(trained.W2, key, kFeedOut);
  return twin;
}

TrainedFeatures::TrainedFeatures(ModelSpec spec, std::shared_ptr<const EncoderLayer> layer,
                                 TrainedPart part)
    : spec_(std::move(spec)), layer_(std::move(layer)), part_(part) {
  if (layer_ == nullptr) throw std::invalid_argument("trained: no encoder layer");
  layer_->check();
  if (layer_->d() != spec_.d) throw std::invalid_argument("trained: the layer is not d wide");
  packed_ = std::make_shared<const TrainedPackedWeights>(*layer_);
}

Vector TrainedFeatures::features(const Matrix& X) const {
  check_sample(X);
  TrainedPass pass;
  trained_forward(*layer_, part_, X, pass);
  return vec(pass.out);
}

std::unique_ptr<PositionEvaluator> TrainedFeatures::at_position(const Matrix& X,
                                                                Index position) const {
  check_sample(X);
  if (position < 0 || position >= X.rows()) {
    throw std::out_of_range("trained: position " + std::to_string(position) + " out of range");
  }
  return make_trained_position_evaluator(*layer_, *packed_, part_, X, position);
}

std::unique_ptr<WordSetEvaluator> TrainedFeatures::at_word_set(
    const Matrix& X, std::span<const Index> positions) const {
  check_sample(X);
  check_word_set(positions, X.rows());
  return std::make_unique<MovedRows>(*layer_, part_, X,
                                     std::vector<Index>(positions.begin(), positions.end()));
}

std::vector<FeatureMap::NamedWeights> TrainedFeatures::stored_weights(Index max_entries) const {
  const EncoderLayer& w = *layer_;
  std::vector<NamedWeights> out;
  const auto add = [&out](const char* name, const Matrix& M) { out.push_back({name, M}); };
  const auto scalar = [&add](const char* name, double value) {
    add(name, Matrix::Constant(1, 1, value));
  };
  add("WQ", w.WQ);
  add("bQ", w.bQ);
  add("WK", w.WK);
  add("bK", w.bK);
  add("WV", w.WV);
  add("bV", w.bV);
  add("WO", w.WO);
  add("bO", w.bO);
  add("gamma0", w.input.gamma);
  add("beta0", w.input.beta);
  scalar("heads", static_cast<double>(w.heads));
  scalar("epsilon", w.epsilon);
  if (part_ == TrainedPart::layer) {
    add("gamma1", w.norm1.gamma);
    add("beta1", w.norm1.beta);
    add("W1", w.W1);
    add("b1", w.b1);
    add("W2", w.W2);
    add("b2", w.b2);
    add("gamma2", w.norm2.gamma);
    add("beta2", w.norm2.beta);
  }
  Index entries = 0;
  for (const auto& named : out) entries += named.values.size();
  if (entries > max_entries) return {};
  return out;
}

std::optional<std::string> trained_problem(const ModelSpec& spec) {
  const std::string name = to_string(spec.kind);
  if (spec.encoder == nullptr) {
    return name + ": needs a pretrained encoder's weights (encoder = <model folder>)";
  }
  if (spec.d != spec.encoder->d()) {
    return name + ": d = " + std::to_string(spec.d) +
           ", but the encoder's layers are d = " + std::to_string(spec.encoder->d()) + " wide";
  }
  if (spec.mask != AttentionMask::none) {
    return name + ": mask = causal does not apply (the encoder's layers attend both ways)";
  }
  return std::nullopt;
}

std::unique_ptr<FeatureMap> make_trained_features(const ModelSpec& spec, WeightKey key) {
  if (const auto problem = trained_problem(spec)) throw InputError(*problem);
  const KindParts parts = parts_of(spec.kind);
  auto layer = parts.twin ? std::make_shared<const EncoderLayer>(random_twin(*spec.encoder, key))
                          : spec.encoder;
  return std::make_unique<TrainedFeatures>(spec, std::move(layer), parts.part);
}

}  // namespace wordsens
