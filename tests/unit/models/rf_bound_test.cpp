// The certified bound of rf (full sampler) and of the marginal rf (examined words only): it holds
// at random and adversarial perturbations and at the estimator's witness on ≥ 100 instances each,
// it is never below the long-double norms of the blocks and within the predicted rounding slack
// of them (so a bound 1% too small fails here), recompute_plain agrees with features() and with
// sensitivity_upper_bound, and the guided start's spectra are reused.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "bound_checks.hpp"
#include "data/synthetic.hpp"
#include "estimators/word_sensitivity.hpp"
#include "model_cases.hpp"
#include "models/bounds/block_norm.hpp"
#include "models/bounds/rounding.hpp"
#include "models/rf/rf.hpp"
#include "models/rf/rf_marginal.hpp"

namespace wordsens {
namespace {

// The single-precision route's rounding terms are ≈ γ_32(2⁻²⁴)·d/2 relative at k = D (below
// 1e-5 for the sizes here); the test allows 1e-4, far below the 1% a corrupted bound would lose.
constexpr double kSlack = 1e-4;

ModelSpec marginal_spec(Index n, Index d, Index k, Activation act) {
  ModelSpec spec{ModelKind::rf, n, d, k, 1, act};
  spec.sampling = RfSampling::marginal;
  return spec;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(RfSensitivityBound, HoldsAndIsTightOnRandomInstances) {
  int instances = 0, estimated = 0;
  double worst_ratio = 0.0;
  std::mt19937_64 gen(11);
  for (std::uint32_t task = 0; task < 120; ++task) {
    const Index n = 2 + task % 5, d = 1 + (task * 3) % 8;
    const Index k = task % 3 == 0 ? n * d : 3 + (task * 7) % 50;
    const Activation act = task % 4 == 3 ? Activation::tanh : Activation::relu;
    const std::uint32_t seed = 30 + task % 7;
    const RandomFeatures model({ModelKind::rf, n, d, k, 1, act}, {seed, task});
    const Matrix X = synthetic_sample(seed, n, d, task, 0);
    const auto bound = model.sensitivity_upper_bound(X);
    ASSERT_TRUE(bound.has_value());
    EXPECT_EQ(bound->scope, BoundScope::all_positions);
    const double U = bound->value;

    long double reference = 0.0L;
    std::vector<Index> words;
    std::vector<Vector> adversarial;
    for (Index i = 0; i < n; ++i) {
      const Matrix B = model.word_block(i);
      reference = std::max(reference, testing::reference_norm(B));
      words.push_back(i);
      adversarial.push_back(testing::top_direction(B));
    }
    reference *= std::sqrt(static_cast<long double>(d));
    EXPECT_GE(static_cast<long double>(U), reference) << "task " << task;
    EXPECT_LE(static_cast<long double>(U), reference * (1 + kSlack)) << "task " << task;
    worst_ratio = std::max(
        worst_ratio, testing::check_bound_at_points(model, X, U, words, gen, 20, adversarial));

    if (model.features(X).norm() > 0.0) {  // S is undefined when every unit is off
      WsOptions options;
      options.ascent.max_evaluations = 100;
      const WsResult r = estimate_word_sensitivity(model, X, options, seed, task);
      ASSERT_TRUE(r.S_upper.has_value());
      EXPECT_LE(r.S, *r.S_upper) << "task " << task;
      EXPECT_LE(testing::change_at(model, X, r.argmax_position, r.witness), U) << "task " << task;
      ++estimated;
    }
    ++instances;
  }
  EXPECT_GE(instances, 100);
  EXPECT_GE(estimated, 100);
  std::printf("rf: largest change/U at the tested points %.9f\n", worst_ratio);
}

TEST(RfSensitivityBound, RecomputePlainMatchesFeaturesAndTheBound) {
  // k = 700: two row chunks of the column-block pass; k = 5: fewer rows than one chunk.
  for (const auto& [n, d, k] : {std::array<Index, 3>{3, 5, 700}, std::array<Index, 3>{4, 2, 5},
                                std::array<Index, 3>{6, 7, 42}}) {
    for (const Activation act : {Activation::relu, Activation::tanh}) {
      const ModelSpec spec{ModelKind::rf, n, d, k, 1, act};
      const RandomFeatures model(spec, {5, 3}), fresh(spec, {5, 3}), plain(spec, {5, 3});
      const Matrix X = testing::test_sample(n, d, 4);
      Matrix moved = X;
      moved.row(n - 1) += Vector::Constant(d, 0.7).transpose();
      const std::vector<Matrix> samples{X, moved};
      const PlainRecomputation r = model.recompute_plain(samples, true);
      ASSERT_EQ(r.features.size(), 2U);
      EXPECT_LT(testing::relative_difference(r.features[0], plain.features(X)), 1e-12);
      EXPECT_LT(testing::relative_difference(r.features[1], plain.features(moved)), 1e-12);
      ASSERT_TRUE(r.bound.has_value());
      const auto alone = fresh.sensitivity_upper_bound(X);
      EXPECT_TRUE(same_bits(r.bound->value, alone->value)) << n << " " << d << " " << k;
      EXPECT_EQ(r.bound->scope, alone->scope);
      // Without the bound: the same features, no bound; a second call serves the cache.
      const PlainRecomputation again = model.recompute_plain(samples, false);
      EXPECT_FALSE(again.bound.has_value());
      EXPECT_EQ(testing::relative_difference(again.features[1], r.features[1]), 0.0);
      EXPECT_TRUE(same_bits(model.sensitivity_upper_bound(X)->value, r.bound->value));
    }
  }
}

TEST(RfSensitivityBound, UsesTheGuidedStartsDoubleSpectrum) {
  const Index n = 4, d = 6, k = 24;
  const RandomFeatures model({ModelKind::rf, n, d, k, 1, Activation::relu}, {7, 1});
  const RandomFeatures float_only({ModelKind::rf, n, d, k, 1, Activation::relu}, {7, 1});
  const Matrix X = testing::test_sample(n, d);
  for (Index i = 0; i < n; ++i) (void)model.guided_direction(X, i);
  double worst = 0.0;
  for (Index i = 0; i < n; ++i) {
    const BlockSpectrum s = column_block_spectrum(model.weights(), k, i * d, d);
    EXPECT_TRUE(same_bits(model.word_block_norm_bound(i), s.norm_upper));
    // The double route is the tighter one, and both are above the long-double norm.
    const long double exact = testing::reference_norm(model.word_block(i));
    EXPECT_GE(static_cast<long double>(s.norm_upper), exact);
    EXPECT_LE(static_cast<long double>(s.norm_upper), exact * (1 + 1e-9L));
    EXPECT_LE(s.norm_upper, float_only.word_block_norm_bound(i));
    worst = std::max(worst, s.norm_upper);
  }
  EXPECT_TRUE(same_bits(model.sensitivity_upper_bound(X)->value,
                        rounding::up(worst * std::sqrt(static_cast<double>(d)))));
}

TEST(RfSensitivityBound, MedianRatioOfEstimateToBound) {
  // How much of the bracket [S, S_upper] is left: S/S_upper over trials at k = D, two sizes.
  for (const auto& [n, d] : {std::array<Index, 2>{5, 4}, std::array<Index, 2>{10, 8}}) {
    std::vector<double> ratios;
    for (std::uint32_t t = 0; t < 15; ++t) {
      const RandomFeatures model({ModelKind::rf, n, d, n * d, 1, Activation::relu}, {12, t});
      const Matrix X = synthetic_sample(12, n, d, t, 0);
      const WsResult r = estimate_word_sensitivity(model, X, {}, 12, t);
      ratios.push_back(r.S / *r.S_upper);
    }
    const double med = testing::median(ratios);
    std::printf("rf relu n=%lld d=%lld k=D: median S/S_upper = %.3f\n", static_cast<long long>(n),
                static_cast<long long>(d), med);
    EXPECT_GT(med, 0.4);
    EXPECT_LE(*std::max_element(ratios.begin(), ratios.end()), 1.0);
  }
}

TEST(RfMarginalBound, HoldsOverTheExaminedWordsOnRandomInstances) {
  int instances = 0;
  std::mt19937_64 gen(17);
  for (std::uint32_t task = 0; task < 110; ++task) {
    const Index n = 2 + task % 6, d = 1 + (task * 5) % 7;
    const Index k = task % 2 == 0 ? n * d : 4 + (task * 11) % 40;
    const Activation act = task % 5 == 4 ? Activation::tanh : Activation::relu;
    const std::uint32_t seed = 50 + task % 3;
    WsOptions options;
    options.positions = PositionSet::parse(task % 4 == 0 ? "first" : "random:2");
    options.ascent.max_evaluations = 100;
    const std::vector<Index> P = options.positions.resolve(n, seed, task);
    const MarginalRandomFeatures model(marginal_spec(n, d, k, act), {seed, task}, P);
    const RandomFeatures full({ModelKind::rf, n, d, k, 1, act}, {seed, task});
    const Matrix X = synthetic_sample(seed, n, d, task, 0);

    const auto bound = model.sensitivity_upper_bound(X);
    ASSERT_TRUE(bound.has_value());
    EXPECT_EQ(bound->scope, static_cast<Index>(P.size()) == n ? BoundScope::all_positions
                                                              : BoundScope::examined_positions);
    const double U = bound->value;
    long double reference = 0.0L;
    std::vector<Vector> adversarial;
    for (const Index i : P) {
      const Matrix B = model.word_block(i);
      reference = std::max(reference, testing::reference_norm(B));
      adversarial.push_back(testing::top_direction(B));
    }
    reference *= std::sqrt(static_cast<long double>(d));
    EXPECT_GE(static_cast<long double>(U), reference) << "task " << task;
    EXPECT_LE(static_cast<long double>(U), reference * (1 + kSlack)) << "task " << task;
    // A bound over P only: never above the full sampler's bound over every word (same blocks).
    EXPECT_LE(U, full.sensitivity_upper_bound(X)->value) << "task " << task;
    (void)testing::check_bound_at_points(model, X, U, P, gen, 20, adversarial);

    if (model.features(X).norm() > 0.0) {
      const WsResult r = estimate_word_sensitivity(model, X, options, seed, task);
      ASSERT_TRUE(r.S_upper.has_value());
      EXPECT_LE(r.S, *r.S_upper) << "task " << task;
      EXPECT_LE(testing::change_at(model, X, r.argmax_position, r.witness),
                model.sensitivity_upper_bound(X)->value);
    }
    ++instances;
  }
  EXPECT_GE(instances, 100);
}

TEST(RfMarginalBound, ReusesTheGuidedStartsSpectraAndRecomputesPlainly) {
  const Index n = 6, d = 5, k = 30;
  const std::vector<Index> P{1, 4};
  const MarginalRandomFeatures model(marginal_spec(n, d, k, Activation::relu), {8, 2}, P);
  const Matrix X = testing::test_sample(n, d, 6);
  double worst = 0.0;
  for (const Index i : P) {
    (void)model.guided_direction(X, i);
    const BlockSpectrum s = column_block_spectrum(
        GaussianMatrix({Philox(8, Stream::weights), 2, 0}, std::sqrt(1.0 / (n * d))), k, i * d, d);
    EXPECT_TRUE(same_bits(model.word_block_norm_bound(i), s.norm_upper)) << "i=" << i;
    worst = std::max(worst, s.norm_upper);
  }
  const auto bound = model.sensitivity_upper_bound(X);
  EXPECT_TRUE(same_bits(bound->value, rounding::up(worst * std::sqrt(static_cast<double>(d)))));
  EXPECT_EQ(bound->scope, BoundScope::examined_positions);

  Matrix moved = X;
  moved.row(4) *= -1.0;
  const std::vector<Matrix> samples{X, moved};
  const PlainRecomputation r = model.recompute_plain(samples, true);
  EXPECT_LT(testing::relative_difference(r.features[0], model.features(X)), 1e-12);
  EXPECT_LT(testing::relative_difference(r.features[1], model.features(moved)), 1e-12);
  ASSERT_TRUE(r.bound.has_value());
  EXPECT_TRUE(same_bits(r.bound->value, bound->value));
  EXPECT_EQ(r.bound->scope, bound->scope);

  const std::vector<Index> all{0, 1, 2, 3, 4, 5};
  const MarginalRandomFeatures every(marginal_spec(n, d, k, Activation::relu), {8, 2}, all);
  EXPECT_EQ(every.sensitivity_upper_bound(X)->scope, BoundScope::all_positions);
}

}  // namespace
}  // namespace wordsens
