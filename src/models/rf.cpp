#include "models/rf.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "models/activation.hpp"
#include "models/rf_evaluator.hpp"

namespace wordsens {

RandomFeatures::RandomFeatures(ModelSpec spec, WeightKey key)
    : spec_(std::move(spec)),
      key_(key),
      V_({Philox(key.master_seed, Stream::weights), key.task_id, 0},
         std::sqrt(1.0 / static_cast<double>(spec_.n * spec_.d))) {}

void RandomFeatures::check_sample(const Matrix& X) const {
  if (X.rows() != spec_.n || X.cols() != spec_.d) {
    throw std::invalid_argument("rf: sample is " + std::to_string(X.rows()) + "x" +
                                std::to_string(X.cols()) + ", model expects " +
                                std::to_string(spec_.n) + "x" + std::to_string(spec_.d));
  }
}

Vector RandomFeatures::preactivation(const Matrix& X) const {
  check_sample(X);
  if (auto cached = preactivation_cache_.find(X)) return *cached;
  const Index D = spec_.n * spec_.d;
  const auto x = vec(X);
  Vector a(spec_.k);
  Matrix Vb(std::min(kRowBlock, spec_.k), D);
  for (Index r0 = 0; r0 < spec_.k; r0 += kRowBlock) {
    const Index h = std::min(kRowBlock, spec_.k - r0);
    V_.fill(r0, 0, h, D, Vb.data(), D);
    a.segment(r0, h).noalias() = Vb.topRows(h) * x;
  }
  preactivation_cache_.store(X, a);
  return a;
}

Vector RandomFeatures::features(const Matrix& X) const {
  Vector out;
  activate(spec_.activation, preactivation(X), out);
  return out;
}

Matrix RandomFeatures::word_block(Index position) const {
  if (position < 0 || position >= spec_.n) {
    throw std::out_of_range("rf: word position " + std::to_string(position) + " outside [0, " +
                            std::to_string(spec_.n) + ")");
  }
  return V_.window(0, position * spec_.d, spec_.k, spec_.d);
}

std::unique_ptr<PositionEvaluator> RandomFeatures::at_position(const Matrix& X,
                                                               Index position) const {
  Matrix B = word_block(position);
  return make_rf_evaluator(spec_.activation, position, preactivation(X), std::move(B));
}

const BlockSpectrum& RandomFeatures::word_spectrum(Index position) const {
  if (position < 0 || position >= spec_.n) {
    throw std::out_of_range("rf: word position " + std::to_string(position) + " outside [0, " +
                            std::to_string(spec_.n) + ")");
  }
  {
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    if (!spectra_.empty() && spectra_[static_cast<std::size_t>(position)]) {
      return *spectra_[static_cast<std::size_t>(position)];
    }
  }
  // Computed outside the lock (seconds at large k·d); a concurrent duplicate is harmless.
  auto spectrum = std::make_unique<BlockSpectrum>(
      column_block_spectrum(V_, spec_.k, position * spec_.d, spec_.d));
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  if (spectra_.empty()) spectra_.resize(static_cast<std::size_t>(spec_.n));
  auto& slot = spectra_[static_cast<std::size_t>(position)];
  if (!slot) slot = std::move(spectrum);
  return *slot;
}

std::optional<Vector> RandomFeatures::guided_direction(const Matrix& X, Index position) const {
  check_sample(X);
  return word_spectrum(position).top_right_vector;
}

double RandomFeatures::word_block_norm_bound(Index position) const {
  return word_spectrum(position).norm_upper;
}

std::optional<double> RandomFeatures::sensitivity_upper_bound(const Matrix& X) const {
  check_sample(X);
  // ‖φ(X^i(Δ)) − φ(X)‖ ≤ ‖V_i Δ‖ ≤ ‖V_i‖₂·√d since ϕ is 1-Lipschitz and ‖Δ‖ ≤ √d.
  double worst = 0.0;
  for (Index i = 0; i < spec_.n; ++i) worst = std::max(worst, word_block_norm_bound(i));
  return worst * std::sqrt(static_cast<double>(spec_.d));
}

namespace {

/// The samples' vec(X_m) as the rows of one M × D matrix, so that each block of V meets all of
/// them in one matrix–matrix product (GEMM) instead of M matrix–vector products that would each
/// stream the block from memory.
Matrix stack_samples(std::span<const Matrix> samples, Index D) {
  Matrix X_all(static_cast<Index>(samples.size()), D);
  for (std::size_t m = 0; m < samples.size(); ++m) {
    X_all.row(static_cast<Index>(m)) = vec(samples[m]).transpose();
  }
  return X_all;
}

}  // namespace

// Streaming over row blocks V_b of V (kRowBlock × D): Φ_b = ϕ(X_all V_bᵀ) is M × h, so memory is
// O(M·D + kRowBlock·D + M·kRowBlock + M²) for gram (X_all is a copy of the samples) and adds
// O(k·C.cols()) for the result of transpose_apply; Φ (M × k) is never formed. Each block is
// generated exactly once per call.
void RandomFeatures::for_each_feature_block(
    std::span<const Matrix> samples,
    const std::function<void(Index r0, const Matrix& phi_b)>& consume) const {
  const Index D = spec_.n * spec_.d;
  for (const Matrix& X : samples) check_sample(X);
  const Matrix X_all = stack_samples(samples, D);
  Matrix Vb(std::min(kRowBlock, spec_.k), D);
  Matrix phi_b;
  for (Index r0 = 0; r0 < spec_.k; r0 += kRowBlock) {
    const Index h = std::min(kRowBlock, spec_.k - r0);
    V_.fill(r0, 0, h, D, Vb.data(), D);
    phi_b.noalias() = X_all * Vb.topRows(h).transpose();
    activate_in_place(spec_.activation, phi_b);
    consume(r0, phi_b);
  }
}

Matrix RandomFeatures::gram(std::span<const Matrix> samples) const {
  const Index M = static_cast<Index>(samples.size());
  Matrix K = Matrix::Zero(M, M);
  for_each_feature_block(samples, [&](Index /*r0*/, const Matrix& phi_b) {
    K.selfadjointView<Eigen::Lower>().rankUpdate(phi_b);
  });
  return K.selfadjointView<Eigen::Lower>();
}

Matrix RandomFeatures::transpose_apply(std::span<const Matrix> samples, const Matrix& C) const {
  const Index M = static_cast<Index>(samples.size());
  if (C.rows() != M) {
    throw std::invalid_argument("rf: transpose_apply coefficients have " +
                                std::to_string(C.rows()) + " rows for " + std::to_string(M) +
                                " samples");
  }
  Matrix theta(spec_.k, C.cols());
  for_each_feature_block(samples, [&](Index r0, const Matrix& phi_b) {
    theta.middleRows(r0, phi_b.cols()).noalias() = phi_b.transpose() * C;
  });
  return theta;
}

}  // namespace wordsens
