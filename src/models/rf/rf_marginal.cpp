#include "models/rf/rf_marginal.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/symmetric_eigen.hpp"
#include "models/bounds/rounding.hpp"
#include "models/rf/rf_evaluator.hpp"
#include "models/shared/activation.hpp"

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

MarginalRandomFeatures::MarginalRandomFeatures(ModelSpec spec, WeightKey key,
                                               std::span<const Index> positions,
                                               std::span<const Matrix* const> samples)
    : MarginalRandomFeatures(std::move(spec), key, positions) {
  const Index M = static_cast<Index>(samples.size());
  if (M < 1) throw std::invalid_argument("rf marginal sampling: empty sample set");
  for (const Matrix* X : samples) check_sample(*X);
  const Index n = spec_.n, d = spec_.d;
  SampleSet set;
  set.count = M;
  for (const Index i : positions_) {
    Matrix words(M, d);
    for (Index s = 0; s < M; ++s) words.row(s) = samples[static_cast<std::size_t>(s)]->row(i);
    set.words_in_p.push_back(std::move(words));
  }
  for (const Matrix* X : samples) set.fingerprints.push_back(fingerprint_outside_p(*X));

  // G = Σ_{j∉P} X_j X_jᵀ / D with X_j (M × d) word j of every sample, accumulated a few words at
  // a time as one symmetric rank update (summed directly: subtracting the words in P from the
  // full Gram would cancel digits).
  constexpr Index kWordsPerUpdate = 16;
  Matrix G = Matrix::Zero(M, M);
  std::vector<Index> outside;
  for (Index j = 0; j < n; ++j) {
    if (!in_p_[static_cast<std::size_t>(j)]) outside.push_back(j);
  }
  Matrix chunk;
  for (std::size_t q0 = 0; q0 < outside.size(); q0 += kWordsPerUpdate) {
    const Index words = std::min<Index>(kWordsPerUpdate, static_cast<Index>(outside.size() - q0));
    chunk.resize(M, words * d);
    for (Index s = 0; s < M; ++s) {
      for (Index w = 0; w < words; ++w) {
        chunk.row(s).segment(w * d, d) =
            samples[static_cast<std::size_t>(s)]->row(outside[q0 + static_cast<std::size_t>(w)]);
      }
    }
    G.selfadjointView<Eigen::Lower>().rankUpdate(chunk);
  }
  G = G.selfadjointView<Eigen::Lower>();
  G /= static_cast<double>(n * d);
  set.covariance = G;

  // Cholesky when G is positive definite (the usual case, D − |P|·d ≥ M); otherwise (e.g. all
  // words in P, or more samples than free coordinates) a symmetric square root with the tiny
  // negative eigenvalues of a PSD matrix set to zero — any F with F Fᵀ = G gives the same law.
  const Eigen::LLT<Matrix> llt(G);
  if (llt.info() == Eigen::Success) {
    set.factor = llt.matrixL();
    set.triangular = true;
  } else {
    const auto eig = symmetric_eigen_row_major(G);
    if (!eig.converged) {
      throw std::runtime_error(
          "rf marginal sampling: eigendecomposition of the residual "
          "covariance did not converge");
    }
    const Vector root = eig.values.cwiseMax(0.0).cwiseSqrt();
    set.factor = eig.vectors * root.asDiagonal() * eig.vectors.transpose();
    set.triangular = false;
  }
  sample_set_ = std::move(set);
}

void MarginalRandomFeatures::check_position(Index position) const {
  if (position < 0 || position >= spec_.n || !in_p_[static_cast<std::size_t>(position)]) {
    throw std::out_of_range("rf marginal sampling: word position " + std::to_string(position) +
                            " is not among the positions the weights were drawn for");
  }
}

std::uint64_t MarginalRandomFeatures::fingerprint_outside_p(const Matrix& X) const {
  // Chained splitmix64 finaliser over the bit patterns of the entries outside P: each step is a
  // bijection with full avalanche, so any change of any bit (a sign flip included) changes the
  // result. A collision between two different texts has probability ~2^-64; it would only pair a
  // text with another text's residual, never crash.
  const auto mix = [](std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  std::uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (Index j = 0; j < spec_.n; ++j) {
    if (in_p_[static_cast<std::size_t>(j)]) continue;
    for (Index c = 0; c < spec_.d; ++c) {
      std::uint64_t bits = 0;
      const double value = X(j, c);
      std::memcpy(&bits, &value, sizeof bits);
      h = mix(h ^ bits);
    }
  }
  return h;
}

Index MarginalRandomFeatures::find_sample(const Matrix& X) const {
  const std::uint64_t h = fingerprint_outside_p(X);
  const auto& fp = sample_set_->fingerprints;
  // From the end: gen's test text is registered last and is the one perturbed.
  for (Index s = sample_set_->count - 1; s >= 0; --s) {
    if (fp[static_cast<std::size_t>(s)] == h) return s;
  }
  throw std::invalid_argument(
      "rf marginal sampling: this text differs from every sample the weights were drawn for "
      "outside the examined word positions");
}

void MarginalRandomFeatures::check_sample_set(std::span<const Matrix> samples) const {
  if (!sample_set_) {
    throw std::logic_error(
        "rf marginal sampling was set up for one sample at a time (ws); several samples need the "
        "sample set at construction");
  }
  const SampleSet& set = *sample_set_;
  bool same = static_cast<Index>(samples.size()) == set.count;
  for (Index s = 0; same && s < set.count; ++s) {
    const Matrix& X = samples[static_cast<std::size_t>(s)];
    check_sample(X);
    same = fingerprint_outside_p(X) == set.fingerprints[static_cast<std::size_t>(s)];
    for (std::size_t q = 0; same && q < positions_.size(); ++q) {
      same = std::memcmp(X.row(positions_[q]).data(), set.words_in_p[q].row(s).data(),
                         sizeof(double) * static_cast<std::size_t>(spec_.d)) == 0;
    }
  }
  if (!same) {
    throw std::invalid_argument(
        "rf marginal sampling: gram / transpose_apply over samples other than the ones the "
        "weights were drawn for");
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

bool MarginalRandomFeatures::factor_is_cholesky() const {
  if (!sample_set_) throw std::logic_error("rf marginal sampling: no sample set (ws mode)");
  return sample_set_->triangular;
}

const Matrix& MarginalRandomFeatures::residual_covariance() const {
  if (!sample_set_) throw std::logic_error("rf marginal sampling: no sample set (ws mode)");
  return sample_set_->covariance;
}

Vector MarginalRandomFeatures::residual(const Matrix& X) const {
  if (!sample_set_) return residual_scale(X) * residual_direction();
  const Index s = find_sample(X);
  {
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cached_residual_sample_ == s) return cached_residual_;
  }
  const SampleSet& set = *sample_set_;
  // R[:, s] = Zᵀ F[s, :]ᵀ; with a Cholesky factor only Z's rows 0..s enter.
  const Index used = set.triangular ? s + 1 : set.count;
  const Vector f = set.factor.row(s).head(used).transpose();
  Vector r(spec_.k);
  Matrix Zb(used, std::min(kSampleRowBlock, spec_.k));
  for (Index r0 = 0; r0 < spec_.k; r0 += kSampleRowBlock) {
    const Index h = std::min(kSampleRowBlock, spec_.k - r0);
    Z_.fill(0, r0, used, h, Zb.data(), Zb.cols());
    r.segment(r0, h).noalias() = Zb.leftCols(h).transpose() * f;
  }
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  cached_residual_sample_ = s;
  cached_residual_ = r;
  return r;
}

Vector MarginalRandomFeatures::preactivation(const Matrix& X) const {
  check_sample(X);
  if (auto cached = preactivation_cache_.find(X)) return *cached;
  const Index d = spec_.d;
  Vector a = residual(X);
  Matrix Vb(std::min(kRowBlock, spec_.k), d);
  for (Index r0 = 0; r0 < spec_.k; r0 += kRowBlock) {
    const Index h = std::min(kRowBlock, spec_.k - r0);
    for (const Index i : positions_) {
      V_.fill(r0, i * d, h, d, Vb.data(), d);
      a.segment(r0, h).noalias() += Vb.topRows(h) * X.row(i).transpose();
    }
  }
  preactivation_cache_.store(X, a);
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

const BlockSpectrum& MarginalRandomFeatures::word_spectrum(Index position) const {
  check_position(position);
  const auto i = static_cast<std::size_t>(position);
  {
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    if (!spectra_.empty() && spectra_[i]) return *spectra_[i];
  }
  // Computed outside the lock (seconds at large k·d); a concurrent duplicate is harmless.
  auto spectrum = std::make_unique<BlockSpectrum>(
      column_block_spectrum(V_, spec_.k, position * spec_.d, spec_.d));
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  if (spectra_.empty()) spectra_.resize(static_cast<std::size_t>(spec_.n));
  if (!spectra_[i]) spectra_[i] = std::move(spectrum);
  return *spectra_[i];
}

std::optional<Vector> MarginalRandomFeatures::guided_direction(const Matrix& X,
                                                               Index position) const {
  check_sample(X);
  return word_spectrum(position).top_right_vector;
}

double MarginalRandomFeatures::word_block_norm_bound(Index position) const {
  check_position(position);
  const auto i = static_cast<std::size_t>(position);
  {
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    if (!spectra_.empty() && spectra_[i]) return spectra_[i]->norm_upper;
    if (!word_bounds_.empty() && !std::isnan(word_bounds_[i])) return word_bounds_[i];
  }
  const double bound = column_block_norm_bound(V_, spec_.k, position * spec_.d, spec_.d);
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  if (word_bounds_.empty()) {
    word_bounds_.assign(static_cast<std::size_t>(spec_.n),
                        std::numeric_limits<double>::quiet_NaN());
  }
  word_bounds_[i] = bound;
  return bound;
}

std::optional<SensitivityBound> MarginalRandomFeatures::sensitivity_upper_bound(
    const Matrix& X) const {
  check_sample(X);
  double worst = 0.0;
  for (const Index i : positions_) worst = std::max(worst, word_block_norm_bound(i));
  // As rf's: ‖φ(X^i(Δ)) − φ(X)‖ ≤ ‖V_i Δ‖ ≤ ‖V_i‖₂·√d for i ∈ P, ‖Δ‖ ≤ √d.
  const bool every_word = static_cast<Index>(positions_.size()) == spec_.n;
  return SensitivityBound{rounding::up(worst * std::sqrt(static_cast<double>(spec_.d))),
                          every_word ? BoundScope::all_positions : BoundScope::examined_positions};
}

void MarginalRandomFeatures::for_each_feature_block(const FeatureBlockConsumer& consume,
                                                    bool keep) const {
  const SampleSet& set = *sample_set_;
  const Index M = set.count, d = spec_.d;
  // Kept, block b is the M × h row-major array at offset M·r0 of one buffer (all of Φ, M × k),
  // in huge pages: filled page by page in 4 KiB pages, it cost more than the pass it saves.
  HugePageBuffer kept;
  if (keep) kept = HugePageBuffer(static_cast<std::size_t>(M) * static_cast<std::size_t>(spec_.k));
  Matrix Zb, Vb, scratch;
  for (Index r0 = 0; r0 < spec_.k; r0 += kSampleRowBlock) {
    const Index h = std::min(kSampleRowBlock, spec_.k - r0);
    if (!keep) scratch.resize(M, h);
    Eigen::Map<Matrix> A_b(keep ? kept.data() + M * r0 : scratch.data(), M, h);
    Zb.resize(M, h);
    Z_.fill(0, r0, M, h, Zb.data(), h);
    if (set.triangular) {
      A_b.noalias() = set.factor.triangularView<Eigen::Lower>() * Zb;
    } else {
      A_b.noalias() = set.factor * Zb;
    }
    Vb.resize(h, d);
    for (std::size_t q = 0; q < positions_.size(); ++q) {
      V_.fill(r0, positions_[q] * d, h, d, Vb.data(), d);
      A_b.noalias() += set.words_in_p[q] * Vb.transpose();
    }
    activate_in_place(spec_.activation, A_b);
    consume(r0, A_b);
  }
  if (keep) {
    const std::lock_guard<std::mutex> lock(blocks_mutex_);
    kept_features_ = std::move(kept);
  }
}

bool MarginalRandomFeatures::holds_feature_blocks() const {
  const std::lock_guard<std::mutex> lock(blocks_mutex_);
  return !kept_features_.empty();
}

Matrix MarginalRandomFeatures::gram(std::span<const Matrix> samples) const {
  check_sample_set(samples);
  const Index M = sample_set_->count;
  const bool keep = keeps_features(static_cast<double>(M), static_cast<double>(spec_.k));
  Matrix K = Matrix::Zero(M, M);
  for_each_feature_block(
      [&](Index /*r0*/, const Eigen::Ref<const Matrix>& phi_b) {
        K.selfadjointView<Eigen::Lower>().rankUpdate(phi_b);
      },
      keep);
  return K.selfadjointView<Eigen::Lower>();
}

Matrix MarginalRandomFeatures::transpose_apply(std::span<const Matrix> samples,
                                               const Matrix& C) const {
  check_sample_set(samples);
  const Index M = sample_set_->count;
  if (C.rows() != M) {
    throw std::invalid_argument("rf: transpose_apply coefficients have " +
                                std::to_string(C.rows()) + " rows for " + std::to_string(M) +
                                " samples");
  }
  Matrix theta(spec_.k, C.cols());
  const auto apply = [&](Index r0, const Eigen::Ref<const Matrix>& phi_b) {
    theta.middleRows(r0, phi_b.cols()).noalias() = phi_b.transpose() * C;
  };
  HugePageBuffer kept;
  {
    // Taken, not copied: the head needs Φᵀ C once, and Φ is the largest array of its task.
    const std::lock_guard<std::mutex> lock(blocks_mutex_);
    kept = std::move(kept_features_);
  }
  if (kept.empty()) {
    for_each_feature_block(apply, /*keep=*/false);
    return theta;
  }
  for (Index r0 = 0; r0 < spec_.k; r0 += kSampleRowBlock) {
    const Index h = std::min(kSampleRowBlock, spec_.k - r0);
    apply(r0, Eigen::Map<const Matrix>(kept.data() + M * r0, M, h));
  }
  return theta;
}

std::vector<FeatureMap::NamedWeights> MarginalRandomFeatures::stored_weights(
    Index /*max_entries*/) const {
  return {};
}

}  // namespace wordsens
