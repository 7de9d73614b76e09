#include "models/drf/drf.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "core/gaussian.hpp"
#include "models/bounds/lanczos.hpp"
#include "models/bounds/rounding.hpp"
#include "models/bounds/spectral_certificate.hpp"
#include "models/shared/activation.hpp"
#include "models/shared/hidden_layers.hpp"
#include "models/shared/word_set.hpp"

namespace wordsens {
namespace {

class DrfEvaluator final : public PositionEvaluator {
 public:
  DrfEvaluator(Activation act, const std::vector<Matrix>& layers, Index position, Index d,
               Vector a1)
      : act_(act), layers_(layers), position_(position), d_(d), a1_(std::move(a1)) {
    z_.resize(layers_.size());
    h_.resize(layers_.size());
    forward_from(a1_);
    base_ = h_.back();
  }
  [[nodiscard]] Index position() const override { return position_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  // O(k·d) for the first layer, O(k²) per further layer.
  void features_at(const Vector& delta, Vector& out) override {
    Vector z1 = a1_;
    z1.noalias() += block() * delta;
    forward_from(z1);
    out = h_.back();
  }

  // Back-propagation: g_L = c ⊙ ϕ'(z_L), g_{l−1} = (V_lᵀ g_l) ⊙ ϕ'(z_{l−1}), ∇_Δ = Bᵀ g_1.
  void pullback(const Vector& cotangent, Vector& grad) override {
    Vector g = cotangent;
    for (std::size_t l = layers_.size(); l-- > 0;) {
      multiply_by_derivative(act_, z_[l], g);
      if (l > 0) g = layers_[l].transpose() * g;
    }
    grad.noalias() = block().transpose() * g;
  }

 private:
  // B = V_1's column block of word i, read in place (a group holds many evaluators at once).
  [[nodiscard]] Matrix::ConstColsBlockXpr block() const {
    return layers_[0].middleCols(position_ * d_, d_);
  }

  void forward_from(const Vector& z1) {
    z_[0] = z1;
    activate(act_, z_[0], h_[0]);
    for (std::size_t l = 1; l < layers_.size(); ++l) {
      z_[l].noalias() = layers_[l] * h_[l - 1];
      activate(act_, z_[l], h_[l]);
    }
  }

  Activation act_;
  const std::vector<Matrix>& layers_;  // owned by the model, which outlives its evaluators
  Index position_;
  Index d_;
  Vector a1_;  // V_1 vec(X)
  std::vector<Vector> z_, h_;
  Vector base_;
};

// The positions of one sample searched together: the points of every slot go through the hidden
// layers in one GEMM per layer (each k × k layer read once per call instead of once per point,
// which made drf's search memory-bound), the first layer slot by slot (its own k × d block).
class DrfPositionGroup final : public PositionGroup {
 public:
  DrfPositionGroup(std::vector<std::unique_ptr<PositionEvaluator>> evaluators, Activation act,
                   const std::vector<Matrix>& layers, std::vector<Index> positions, Index d,
                   Vector a1)
      : PositionGroup(std::move(evaluators)),
        first_(layers.front()),
        hidden_(act, std::span<const Matrix>(layers).subspan(1)),
        positions_(std::move(positions)),
        d_(d),
        a1_(std::move(a1)) {
    base_ = hidden_.forward(Matrix(a1_)).col(0);
  }

  void sensitivity_objective(std::span<const Index> slots, const Matrix& deltas, Vector& values,
                             Matrix* grads) override {
    if (static_cast<Index>(slots.size()) != deltas.cols()) {
      throw std::invalid_argument("position group: one slot per column expected");
    }
    Matrix Z1(first_.rows(), deltas.cols());
    for_each_run(slots, [&](Index slot, Index c0, Index width) {
      Z1.middleCols(c0, width).noalias() = block(slot) * deltas.middleCols(c0, width);
    });
    Z1.colwise() += a1_;
    Matrix G;  // ∂f/∂Z_1
    hidden_.sensitivity_objective(std::move(Z1), base_, values, grads != nullptr ? &G : nullptr);
    if (grads == nullptr) return;
    grads->resize(deltas.rows(), deltas.cols());
    for_each_run(slots, [&](Index slot, Index c0, Index width) {
      grads->middleCols(c0, width).noalias() = block(slot).transpose() * G.middleCols(c0, width);
    });
  }

 private:
  [[nodiscard]] Matrix::ConstColsBlockXpr block(Index slot) const {
    return first_.middleCols(positions_.at(static_cast<std::size_t>(slot)) * d_, d_);
  }
  // Calls f(slot, first column, width) for each run of equal slots (the search lays out a
  // slot's points side by side, so a run is usually all of a slot's points in the call).
  template <typename F>
  static void for_each_run(std::span<const Index> slots, F&& f) {
    for (std::size_t c0 = 0; c0 < slots.size();) {
      std::size_t c1 = c0 + 1;
      while (c1 < slots.size() && slots[c1] == slots[c0]) ++c1;
      f(slots[c0], static_cast<Index>(c0), static_cast<Index>(c1 - c0));
      c0 = c1;
    }
  }

  const Matrix& first_;  // V_1, owned by the model
  HiddenLayerBatch hidden_;
  std::vector<Index> positions_;
  Index d_;
  Vector a1_;
  Vector base_;
};

}  // namespace

double DeepRandomFeatures::weight_bytes(const ModelSpec& spec) {
  const double k = static_cast<double>(spec.k);
  const double D = static_cast<double>(spec.n) * static_cast<double>(spec.d);
  return 8.0 * (k * D + static_cast<double>(spec.layers - 1) * k * k);
}

std::optional<std::string> DeepRandomFeatures::size_problem(const ModelSpec& spec) {
  if (weight_bytes(spec) <= kMaxWeightBytes) return std::nullopt;
  return "drf at n=" + std::to_string(spec.n) + ", d=" + std::to_string(spec.d) +
         ", k=" + std::to_string(spec.k) + ", L=" + std::to_string(spec.layers) +
         " needs more than 8 GiB of weights";
}

DeepRandomFeatures::DeepRandomFeatures(ModelSpec spec, WeightKey key)
    : spec_(std::move(spec)), key_(key) {
  if (spec_.layers < 1) throw InputError("drf: layers must be >= 1");
  const double bytes = weight_bytes(spec_);
  if (bytes > kMaxWeightBytes) {
    throw InputError("drf: layers need 8*(k*D + (L-1)*k^2) = " + std::to_string(bytes / (1 << 30)) +
                     " GiB, above the " + std::to_string(kMaxWeightBytes / (1 << 30)) +
                     " GiB limit (reduce k, n, d or layers)");
  }
  const Index D = spec_.n * spec_.d;
  const Philox rng(key.master_seed, Stream::weights);
  for (int l = 0; l < spec_.layers; ++l) {
    const Index cols = l == 0 ? D : spec_.k;
    const GaussianMatrix gen({rng, key.task_id, static_cast<std::uint32_t>(l)},
                             std::sqrt(2.0 / static_cast<double>(cols)));
    layers_.push_back(gen.window(0, 0, spec_.k, cols));
  }
}

Vector DeepRandomFeatures::features(const Matrix& X) const {
  check_sample(X);
  Vector z = layers_[0] * vec(X), h;
  activate(spec_.activation, z, h);
  for (std::size_t l = 1; l < layers_.size(); ++l) {
    z.noalias() = layers_[l] * h;
    activate(spec_.activation, z, h);
  }
  return h;
}

Vector DeepRandomFeatures::first_preactivation(const Matrix& X) const {
  const auto same = [&X](const Matrix& Y) {
    return Y.size() == X.size() &&
           std::memcmp(Y.data(), X.data(), sizeof(double) * static_cast<std::size_t>(X.size())) ==
               0;
  };
  {
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    if (same(cached_X_)) return cached_a1_;
  }
  Vector a1 = layers_[0] * vec(X);
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  cached_X_ = X;
  cached_a1_ = a1;
  return a1;
}

std::unique_ptr<PositionEvaluator> DeepRandomFeatures::at_position(const Matrix& X,
                                                                   Index position) const {
  check_sample(X);
  if (position < 0 || position >= spec_.n) {
    throw std::out_of_range("drf: word position " + std::to_string(position) + " outside [0, " +
                            std::to_string(spec_.n) + ")");
  }
  return std::make_unique<DrfEvaluator>(spec_.activation, layers_, position, spec_.d,
                                        first_preactivation(X));
}

std::unique_ptr<PositionGroup> DeepRandomFeatures::at_positions(
    const Matrix& X, std::span<const Index> positions) const {
  std::vector<std::unique_ptr<PositionEvaluator>> evaluators;
  for (const Index position : positions) evaluators.push_back(at_position(X, position));
  return std::make_unique<DrfPositionGroup>(std::move(evaluators), spec_.activation, layers_,
                                            std::vector<Index>(positions.begin(), positions.end()),
                                            spec_.d, first_preactivation(X));
}

Index DeepRandomFeatures::positions_per_group(Index points, Index per_position) const {
  return std::max<Index>(1, (points + per_position - 1) / std::max<Index>(per_position, 1));
}

std::optional<Vector> DeepRandomFeatures::guided_direction(const Matrix& X, Index position) const {
  check_sample(X);
  if (position < 0 || position >= spec_.n) {
    throw std::out_of_range("drf: word position outside the text");
  }
  const Matrix B = layers_[0].middleCols(position * spec_.d, spec_.d);
  Vector tmp(B.rows());
  const SymmetricOperator apply = [&B, &tmp](const Vector& v, Vector& out) {
    tmp.noalias() = B * v;
    out.noalias() = B.transpose() * tmp;
  };
  LanczosOptions options;
  options.relative_tolerance = 1e-6;  // a starting direction, not a bound
  return lanczos_top_eigen(apply, B.cols(), Vector::Ones(B.cols()), options).ritz_vector;
}

const DeepRandomFeatures::NormBounds& DeepRandomFeatures::norm_bounds() const {
  // Held for the whole computation: a second caller waits instead of repeating seconds of work.
  const std::lock_guard<std::mutex> lock(bounds_mutex_);
  if (!norm_bounds_) {
    NormBounds bounds;
    const Index d = spec_.d;
    for (Index i = 0; i < spec_.n; ++i) {
      bounds.first_layer_blocks.push_back(certified_norm(layers_[0].middleCols(i * d, d)));
    }
    for (std::size_t l = 1; l < layers_.size(); ++l) {
      bounds.hidden_layers.push_back(certified_norm(layers_[l]));
    }
    norm_bounds_ = std::move(bounds);
  }
  return *norm_bounds_;
}

std::unique_ptr<WordSetEvaluator> DeepRandomFeatures::at_word_set(
    const Matrix& X, std::span<const Index> positions) const {
  check_word_set(positions, spec_.n);
  std::vector<Matrix> blocks;
  for (const Index i : positions) blocks.push_back(layers_[0].middleCols(i * spec_.d, spec_.d));
  return make_first_layer_word_set(spec_.activation, std::span<const Matrix>(layers_).subspan(1),
                                   std::vector<Index>(positions.begin(), positions.end()),
                                   first_preactivation(X), std::move(blocks));
}

std::optional<SensitivityBound> DeepRandomFeatures::word_set_upper_bound(
    const Matrix& X, std::span<const std::vector<Index>> sets) const {
  check_sample(X);
  const NormBounds& bounds = norm_bounds();
  const Index d = spec_.d;
  double worst = 0.0;
  for (const auto& set : sets) {
    check_word_set(set, spec_.n);
    const Index m = static_cast<Index>(set.size());
    Matrix columns(spec_.k, m * d);
    for (Index j = 0; j < m; ++j) {
      columns.middleCols(j * d, d) = layers_[0].middleCols(set[static_cast<std::size_t>(j)] * d, d);
    }
    double value = certified_norm(columns) * std::sqrt(static_cast<double>(m * d));
    for (const double U : bounds.hidden_layers) value *= U;
    worst = std::max(worst, rounding::up(value));
  }
  return SensitivityBound{worst, BoundScope::examined_positions};
}

std::optional<SensitivityBound> DeepRandomFeatures::sensitivity_upper_bound(const Matrix& X) const {
  check_sample(X);
  const NormBounds& bounds = norm_bounds();
  // U = max_i U_{1,i}·√d·∏_l U_l: at most L + 1 roundings of non-negative numbers, rounded up.
  double value =
      *std::max_element(bounds.first_layer_blocks.begin(), bounds.first_layer_blocks.end()) *
      std::sqrt(static_cast<double>(spec_.d));
  for (const double U : bounds.hidden_layers) value *= U;
  return SensitivityBound{rounding::up(value), BoundScope::all_positions};
}

std::vector<FeatureMap::NamedWeights> DeepRandomFeatures::stored_weights(Index max_entries) const {
  Index total = 0;
  for (const Matrix& V : layers_) total += V.size();
  if (total > max_entries) return {};
  std::vector<NamedWeights> weights;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    weights.push_back({"V" + std::to_string(l + 1), layers_[l]});
  }
  return weights;
}

}  // namespace wordsens
