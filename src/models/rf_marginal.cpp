#include "models/rf_marginal.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "models/activation.hpp"
#include "models/rf_evaluator.hpp"

namespace wordsens {

MarginalRandomFeatures::MarginalRandomFeatures(ModelSpec spec, WeightKey key,
                                               std::span<const Index> positions)
    : spec_(std::move(spec)),
      // Exactly RandomFeatures' V (same stream, entity, matrix id and scale): V_i are bitwise
      // the full sampler's blocks.
      V_({Philox(key.master_seed, Stream::weights), key.task_id, 0},
         std::sqrt(1.0 / static_cast<double>(spec_.n * spec_.d))),
      Z_({Philox(key.master_seed, Stream::weights), key.task_id, 1}, 1.0),
      positions_(positions.begin(), positions.end()),
      in_p_(static_cast<std::size_t>(spec_.n), false) {
  if (positions_.empty()) throw std::invalid_argument("rf marginal sampling: no word positions");
  for (const Index i : positions_) {
    if (i < 0 || i >= spec_.n) {
      throw std::invalid_argument("rf marginal sampling: word position " + std::to_string(i) +
                                  " outside [0, " + std::to_string(spec_.n) + ")");
    }
    if (in_p_[static_cast<std::size_t>(i)]) {
      throw std::invalid_argument("rf marginal sampling: word position " + std::to_string(i) +
                                  " given twice");
    }
    in_p_[static_cast<std::size_t>(i)] = true;
  }
}

void MarginalRandomFeatures::check_sample(const Matrix& X) const {
  if (X.rows() != spec_.n || X.cols() != spec_.d) {
    throw std::invalid_argument("rf: sample is " + std::to_string(X.rows()) + "x" +
                                std::to_string(X.cols()) + ", model expects " +
                                std::to_string(spec_.n) + "x" + std::to_string(spec_.d));
  }
}

void MarginalRandomFeatures::check_position(Index position) const {
  if (position < 0 || position >= spec_.n || !in_p_[static_cast<std::size_t>(position)]) {
    throw std::out_of_range("rf marginal sampling: word position " + std::to_string(position) +
                            " is not among the positions the weights were drawn for");
  }
}

double MarginalRandomFeatures::residual_scale(const Matrix& X) const {
  check_sample(X);
  double sum = 0.0;
  for (Index j = 0; j < spec_.n; ++j) {
    if (!in_p_[static_cast<std::size_t>(j)]) sum += X.row(j).squaredNorm();
  }
  return std::sqrt(sum / static_cast<double>(spec_.n * spec_.d));
}

Vector MarginalRandomFeatures::residual_direction() const { return Z_.row_segment(0, 0, spec_.k); }

Vector MarginalRandomFeatures::preactivation(const Matrix& X) const {
  check_sample(X);
  {
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cached_X_.size() == X.size() &&
        std::memcmp(cached_X_.data(), X.data(),
                    sizeof(double) * static_cast<std::size_t>(X.size())) == 0) {
      return cached_a_;
    }
  }
  const Index d = spec_.d;
  Vector a = residual_scale(X) * residual_direction();
  Matrix Vb(std::min(kRowBlock, spec_.k), d);
  for (Index r0 = 0; r0 < spec_.k; r0 += kRowBlock) {
    const Index h = std::min(kRowBlock, spec_.k - r0);
    for (const Index i : positions_) {
      V_.fill(r0, i * d, h, d, Vb.data(), d);
      a.segment(r0, h).noalias() += Vb.topRows(h) * X.row(i).transpose();
    }
  }
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  cached_X_ = X;
  cached_a_ = a;
  return a;
}

Vector MarginalRandomFeatures::features(const Matrix& X) const {
  Vector out;
  activate(spec_.activation, preactivation(X), out);
  return out;
}

Matrix MarginalRandomFeatures::word_block(Index position) const {
  check_position(position);
  return V_.window(0, position * spec_.d, spec_.k, spec_.d);
}

std::unique_ptr<PositionEvaluator> MarginalRandomFeatures::at_position(const Matrix& X,
                                                                       Index position) const {
  Matrix B = word_block(position);
  return make_rf_evaluator(spec_.activation, position, preactivation(X), std::move(B));
}

std::optional<Vector> MarginalRandomFeatures::guided_direction(const Matrix& X,
                                                               Index position) const {
  check_sample(X);
  check_position(position);
  return column_block_spectrum(V_, spec_.k, position * spec_.d, spec_.d).top_right_vector;
}

std::optional<double> MarginalRandomFeatures::sensitivity_upper_bound(const Matrix& X) const {
  check_sample(X);
  return std::nullopt;
}

Matrix MarginalRandomFeatures::gram(std::span<const Matrix> /*samples*/) const {
  throw std::logic_error(
      "rf marginal sampling draws the weights for one sample (ws); use rf-sampling = full");
}

Matrix MarginalRandomFeatures::transpose_apply(std::span<const Matrix> /*samples*/,
                                               const Matrix& /*C*/) const {
  throw std::logic_error(
      "rf marginal sampling draws the weights for one sample (ws); use rf-sampling = full");
}

}  // namespace wordsens
