#include "models/rf/rf.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "models/bounds/float_gram.hpp"
#include "models/bounds/rounding.hpp"
#include "models/rf/rf_evaluator.hpp"
#include "models/shared/activation.hpp"
#include "models/shared/word_set.hpp"

namespace wordsens {

RandomFeatures::RandomFeatures(ModelSpec spec, WeightKey key)
    : spec_(std::move(spec)),
      key_(key),
      V_({Philox(key.master_seed, Stream::weights), key.task_id, 0},
         std::sqrt(1.0 / static_cast<double>(spec_.n * spec_.d))) {}

Vector RandomFeatures::preactivation(const Matrix& X) const {
  check_sample(X);
  if (auto cached = preactivation_cache_.find(X)) return *cached;
  Matrix A;
  column_block_pass(std::span<const Matrix>(&X, 1), A, false);
  Vector a = A.col(0);
  preactivation_cache_.store(X, a);
  return a;
}

Vector RandomFeatures::features(const Matrix& X) const {
  Vector out;
  activate(spec_.activation, preactivation(X), out);
  return out;
}

void RandomFeatures::check_position(Index position) const {
  if (position < 0 || position >= spec_.n) {
    throw std::out_of_range("rf: word position " + std::to_string(position) + " outside [0, " +
                            std::to_string(spec_.n) + ")");
  }
}

Matrix RandomFeatures::word_block(Index position) const {
  check_position(position);
  return V_.window(0, position * spec_.d, spec_.k, spec_.d);
}

std::unique_ptr<PositionEvaluator> RandomFeatures::at_position(const Matrix& X,
                                                               Index position) const {
  Matrix B = word_block(position);
  return make_rf_evaluator(spec_.activation, position, preactivation(X), std::move(B));
}

std::unique_ptr<WordSetEvaluator> RandomFeatures::at_word_set(
    const Matrix& X, std::span<const Index> positions) const {
  check_word_set(positions, spec_.n);
  std::vector<Matrix> blocks;
  for (const Index i : positions) blocks.push_back(word_block(i));
  return make_first_layer_word_set(spec_.activation, {},
                                   std::vector<Index>(positions.begin(), positions.end()),
                                   preactivation(X), std::move(blocks));
}

std::optional<SensitivityBound> RandomFeatures::word_set_upper_bound(
    const Matrix& X, std::span<const std::vector<Index>> sets) const {
  check_sample(X);
  double worst = 0.0;
  for (const auto& set : sets) {
    check_word_set(set, spec_.n);
    const Index d = spec_.d, m = static_cast<Index>(set.size());
    const double U = streamed_norm_bound(spec_.k, m * d, [&](Index r0, Index h, double* out) {
      for (Index j = 0; j < m; ++j)
        V_.fill(r0, set[static_cast<std::size_t>(j)] * d, h, d, out + j * d, m * d);
    });
    worst = std::max(worst, rounding::up(U * std::sqrt(static_cast<double>(m * d))));
  }
  return SensitivityBound{worst, BoundScope::examined_positions};
}

const BlockSpectrum& RandomFeatures::word_spectrum(Index position) const {
  check_position(position);
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

std::optional<double> RandomFeatures::known_word_bound(Index position) const {
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  const auto i = static_cast<std::size_t>(position);
  if (!spectra_.empty() && spectra_[i]) return spectra_[i]->norm_upper;
  if (!word_bounds_.empty() && !std::isnan(word_bounds_[i])) return word_bounds_[i];
  return std::nullopt;
}

void RandomFeatures::store_word_bound(Index position, double bound) const {
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  if (word_bounds_.empty()) {
    word_bounds_.assign(static_cast<std::size_t>(spec_.n),
                        std::numeric_limits<double>::quiet_NaN());
  }
  word_bounds_[static_cast<std::size_t>(position)] = bound;
}

double RandomFeatures::word_block_norm_bound(Index position) const {
  check_position(position);
  if (const auto known = known_word_bound(position)) return *known;
  const double bound = column_block_norm_bound(V_, spec_.k, position * spec_.d, spec_.d);
  store_word_bound(position, bound);
  return bound;
}

void RandomFeatures::column_block_pass(std::span<const Matrix> samples, Matrix& A,
                                       bool bounds) const {
  const Index n = spec_.n, d = spec_.d, k = spec_.k;
  const Index M = static_cast<Index>(samples.size());
  A = Matrix::Zero(k, M);
  Matrix words(d, M);  // column s: word i of sample s
  Matrix chunk(std::min(kPassRows, k), d);
  std::optional<FloatGram> gram;
  for (Index i = 0; i < n; ++i) {
    const bool need_bound = bounds && !known_word_bound(i);
    if (M == 0 && !need_bound) continue;
    for (Index s = 0; s < M; ++s) words.col(s) = samples[static_cast<std::size_t>(s)].row(i);
    if (need_bound) {
      if (!gram) gram.emplace(d);
      gram->reset();
    }
    for (Index r0 = 0; r0 < k; r0 += kPassRows) {
      const Index h = std::min(kPassRows, k - r0);
      V_.fill(r0, i * d, h, d, chunk.data(), d);
      // A few samples (the usual 1 or 2): dot products of the cached rows, as Eigen's GEMM would
      // first copy the 3 MB chunk into its packed layout.
      if (M > 0 && M <= kFewSamples) {
        A.middleRows(r0, h).noalias() += chunk.topRows(h).lazyProduct(words);
      } else if (M > 0) {
        A.middleRows(r0, h).noalias() += chunk.topRows(h) * words;
      }
      if (need_bound) gram->add_rows(chunk.data(), h, d);
    }
    if (need_bound) store_word_bound(i, gram->bound().norm_upper);
  }
}

SensitivityBound RandomFeatures::bound_from_cache() const {
  double worst = 0.0;
  for (Index i = 0; i < spec_.n; ++i) worst = std::max(worst, *known_word_bound(i));
  // ‖φ(X^i(Δ)) − φ(X)‖ ≤ ‖V_i Δ‖ ≤ ‖V_i‖₂·√d: ϕ is 1-Lipschitz and ‖Δ‖ ≤ √d.
  return {rounding::up(worst * std::sqrt(static_cast<double>(spec_.d))), BoundScope::all_positions};
}

std::optional<SensitivityBound> RandomFeatures::sensitivity_upper_bound(const Matrix& X) const {
  check_sample(X);
  Matrix unused;
  column_block_pass({}, unused, true);
  return bound_from_cache();
}

PlainRecomputation RandomFeatures::recompute_plain(std::span<const Matrix> samples,
                                                   bool want_bound) const {
  for (const Matrix& X : samples) check_sample(X);
  PlainRecomputation out;
  Matrix A;
  column_block_pass(samples, A, want_bound && !samples.empty());
  out.features.resize(samples.size());
  for (std::size_t s = 0; s < samples.size(); ++s) {
    activate(spec_.activation, A.col(static_cast<Index>(s)), out.features[s]);
  }
  if (want_bound && !samples.empty()) out.bound = bound_from_cache();
  return out;
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

std::vector<FeatureMap::NamedWeights> RandomFeatures::stored_weights(Index max_entries) const {
  const Index D = spec_.n * spec_.d;
  if (spec_.k * D > max_entries) return {};
  return {{"V", V_.window(0, 0, spec_.k, D)}};
}

}  // namespace wordsens
