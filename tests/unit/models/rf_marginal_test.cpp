// rf's exact marginal sampler (models/rf/rf_marginal.hpp): the law of (a, V_P) matches the full
// sampler's (exact moments, bitwise blocks), S has the same distribution (two-sample KS test),
// the marginal map is self-consistent (evaluator vs scratch, FD gradient) and reproducible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/errors.hpp"
#include "estimators/word_sensitivity.hpp"
#include "model_cases.hpp"
#include "models/rf/rf.hpp"
#include "models/rf/rf_marginal.hpp"
#include "study/study.hpp"

namespace wordsens {
namespace {

bool bitwise_equal(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

ModelSpec rf_spec(Index n, Index d, Index k, Activation act = Activation::relu) {
  ModelSpec spec{ModelKind::rf, n, d, k, 1, act};
  spec.sampling = RfSampling::marginal;
  return spec;
}

TEST(RfMarginal, BlocksAreBitwiseTheFullSamplersAndGuidedDirectionsAgree) {
  const Index n = 5, d = 3, k = 11;
  const std::vector<Index> P{1, 3};
  for (std::uint32_t task = 0; task < 5; ++task) {
    const MarginalRandomFeatures marginal(rf_spec(n, d, k), {4, task}, P);
    const RandomFeatures full({ModelKind::rf, n, d, k, 1, Activation::relu}, {4, task});
    const Matrix X = testing::test_sample(n, d, task);
    for (const Index i : P) {
      EXPECT_TRUE(bitwise_equal(marginal.word_block(i), full.word_block(i))) << "i=" << i;
      const Vector gm = *marginal.guided_direction(X, i), gf = *full.guided_direction(X, i);
      EXPECT_TRUE(bitwise_equal(gm, gf)) << "i=" << i;
    }
  }
}

TEST(RfMarginal, PreactivationHasTheFullSamplersJointMoments) {
  // Under the full sampler a = V vec(X) ~ N(0, (‖vec X‖²/D)·I_k) and Cov(a, V_i x_i) =
  // (‖x_i‖²/D)·I_k. Check both over many task ids; tolerances are 5 standard errors.
  const Index n = 4, d = 3, k = 6;
  const double D = static_cast<double>(n * d);
  const std::vector<Index> P{2};
  const Matrix X = testing::test_sample(n, d, 1);
  const double var = X.squaredNorm() / D;
  const double cross = X.row(2).squaredNorm() / D;
  const int T = 6000;
  Vector mean = Vector::Zero(k);
  Matrix cov = Matrix::Zero(k, k);
  Vector cross_cov = Vector::Zero(k);
  for (int t = 0; t < T; ++t) {
    const MarginalRandomFeatures model(rf_spec(n, d, k), {7, static_cast<std::uint32_t>(t)}, P);
    const Vector a = model.preactivation(X);
    const Vector b = model.word_block(2) * X.row(2).transpose();
    mean += a;
    cov.noalias() += a * a.transpose();
    cross_cov += a.cwiseProduct(b);
  }
  mean /= T;
  cov /= T;
  cross_cov /= T;
  const double se_mean = std::sqrt(var / T);
  const double se_diag = var * std::sqrt(2.0 / T);
  const double se_off = var / std::sqrt(static_cast<double>(T));
  const double se_cross = std::sqrt((var * cross + cross * cross) / T);
  for (Index r = 0; r < k; ++r) {
    EXPECT_NEAR(mean(r), 0.0, 5 * se_mean) << "r=" << r;
    EXPECT_NEAR(cross_cov(r), cross, 5 * se_cross) << "r=" << r;
    for (Index c = 0; c < k; ++c) {
      EXPECT_NEAR(cov(r, c), r == c ? var : 0.0, 5 * (r == c ? se_diag : se_off))
          << "r=" << r << " c=" << c;
    }
  }
}

TEST(RfMarginal, WordSensitivityHasTheFullSamplersDistribution) {
  // S under both samplers at n=6, d=4, k=D, positions=first, on the same texts with independent
  // weights (disjoint task ids). KS critical value at α = 0.001 for 200 vs 200 is ≈ 0.195.
  const Index n = 6, d = 4, k = 24;
  const std::uint32_t seed = 3, trials = 200;
  WsOptions options;
  options.positions = PositionSet::parse("first");
  options.upper_bound = false;
  std::vector<double> s_full, s_marginal, s_narrow;
  for (std::uint32_t t = 0; t < trials; ++t) {
    const Matrix X = synthetic_sample(seed, n, d, t, 0);
    const RandomFeatures full({ModelKind::rf, n, d, k, 1, Activation::relu}, {seed, t});
    s_full.push_back(estimate_word_sensitivity(full, X, options, seed, t).S);
    const std::uint32_t task = 100000 + t;
    const auto P = options.positions.resolve(n, seed, task);
    const MarginalRandomFeatures marginal(rf_spec(n, d, k), {seed, task}, P);
    s_marginal.push_back(estimate_word_sensitivity(marginal, X, options, seed, task).S);
    // A wrong law the test must reject: the residual of only 2 of the 5 other words.
    Matrix Xw = X;
    Xw.bottomRows(3).setZero();
    const MarginalRandomFeatures narrow(rf_spec(n, d, k), {seed, task}, P);
    s_narrow.push_back(estimate_word_sensitivity(narrow, Xw, options, seed, task).S);
  }
  const double ks = testing::ks_statistic(s_full, s_marginal);
  const double ks_wrong = testing::ks_statistic(s_full, s_narrow);
  std::printf("KS(full, marginal) = %.4f, KS(full, wrong residual) = %.4f\n", ks, ks_wrong);
  EXPECT_LT(ks, 0.25) << "full and marginal samplers disagree";
  EXPECT_GT(ks_wrong, 0.25) << "the test has no power";
}

TEST(RfMarginal, EvaluatorMatchesScratchAndGradientMatchesFiniteDifferences) {
  const Index n = 5, d = 4, k = 30;
  const std::vector<Index> P{0, 2, 4};
  std::mt19937_64 gen(11);
  for (const Activation act : {Activation::relu, Activation::tanh}) {
    const MarginalRandomFeatures model(rf_spec(n, d, k, act), {5, 2}, P);
    const Matrix X = testing::test_sample(n, d, 4);
    for (const Index i : P) {
      auto eval = model.at_position(X, i);
      EXPECT_LT(testing::relative_difference(eval->base_features(), model.features(X)), 1e-14);
      for (int s = 0; s < 4; ++s) {
        const Vector delta = testing::ball_point(gen, d, s % 2 == 0);
        Vector phi;
        eval->features_at(delta, phi);
        Matrix Xp = X;
        Xp.row(i) += delta.transpose();
        EXPECT_LT(testing::relative_difference(phi, model.features(Xp)), 1e-12) << "i=" << i;
        if (act != Activation::tanh) continue;  // ReLU kinks: FD only on the smooth map
        const Vector c = testing::gaussian_vector(gen, k);
        Vector grad;
        eval->features_at(delta, phi);
        eval->pullback(c, grad);
        const double h = 1e-6;
        for (Index j = 0; j < d; ++j) {
          Vector plus = delta, minus = delta, fp, fm;
          plus(j) += h;
          minus(j) -= h;
          eval->features_at(plus, fp);
          eval->features_at(minus, fm);
          const double fd = (c.dot(fp) - c.dot(fm)) / (2 * h);
          EXPECT_NEAR(grad(j), fd, 1e-6 * (1 + std::abs(fd))) << "i=" << i << " j=" << j;
        }
      }
    }
  }
}

TEST(RfMarginal, BitwiseReproducible) {
  const Index n = 6, d = 4, k = 24;
  WsOptions options;
  options.positions = PositionSet::parse("random:2");
  const auto P = options.positions.resolve(n, 9, 17);
  const MarginalRandomFeatures a(rf_spec(n, d, k), {9, 17}, P), b(rf_spec(n, d, k), {9, 17}, P);
  const Matrix X = synthetic_sample(9, n, d, 2, 0);
  EXPECT_TRUE(bitwise_equal(a.features(X), b.features(X)));
  const WsResult ra = estimate_word_sensitivity(a, X, options, 9, 17);
  const WsResult rb = estimate_word_sensitivity(b, X, options, 9, 17);
  EXPECT_EQ(std::memcmp(&ra.S, &rb.S, sizeof(double)), 0);
  EXPECT_EQ(ra.argmax_position, rb.argmax_position);
  EXPECT_TRUE(bitwise_equal(ra.witness, rb.witness));
  ASSERT_TRUE(ra.S_upper.has_value());  // over the examined positions only
  EXPECT_EQ(std::memcmp(&*ra.S_upper, &*rb.S_upper, sizeof(double)), 0);
  // A different task draws different weights.
  const MarginalRandomFeatures c(rf_spec(n, d, k), {9, 18}, P);
  EXPECT_FALSE(bitwise_equal(a.features(X), c.features(X)));
}

TEST(RfMarginal, RefusesWhatItCannotGive) {
  const Index n = 4, d = 3, k = 8;
  const std::vector<Index> P{1};
  const MarginalRandomFeatures model(rf_spec(n, d, k), {1, 1}, P);
  const Matrix X = testing::test_sample(n, d);
  EXPECT_THROW((void)model.at_position(X, 0), std::out_of_range);
  EXPECT_THROW((void)model.word_block(3), std::out_of_range);
  EXPECT_THROW((void)model.word_block_norm_bound(0), std::out_of_range);
  const std::vector<Matrix> samples{X, X};
  EXPECT_THROW((void)model.gram(samples), std::logic_error);
  EXPECT_THROW((void)model.transpose_apply(samples, Matrix::Ones(2, 1)), std::logic_error);
  // The factory: marginal needs positions, applies to rf only, and positions must be valid.
  EXPECT_THROW((void)make_feature_map(rf_spec(n, d, k), {1, 1}), InputError);
  ModelSpec raf{ModelKind::raf, n, d, 0, 1, Activation::relu};
  raf.sampling = RfSampling::marginal;
  EXPECT_THROW((void)make_feature_map(raf, {1, 1}, P), InputError);
  const std::vector<Index> bad{1, 1}, outside{4}, none;
  EXPECT_THROW((void)make_feature_map(rf_spec(n, d, k), {1, 1}, bad), std::invalid_argument);
  EXPECT_THROW((void)make_feature_map(rf_spec(n, d, k), {1, 1}, outside), std::invalid_argument);
  EXPECT_THROW((void)make_feature_map(rf_spec(n, d, k), {1, 1}, none), std::invalid_argument);
  const auto made = make_feature_map(rf_spec(n, d, k), {1, 1}, P);
  EXPECT_NE(dynamic_cast<const MarginalRandomFeatures*>(made.get()), nullptr);
  ModelSpec full = rf_spec(n, d, k);
  full.sampling = RfSampling::full;
  EXPECT_NE(dynamic_cast<const RandomFeatures*>(make_feature_map(full, {1, 1}, P).get()), nullptr);
}

TEST(RfMarginal, DriverConfigReachesRfOnlyAndTheCanonicalText) {
  StudyConfig config;
  TaskSpec rf_task, raf_task;
  rf_task.model = ModelKind::rf;
  raf_task.model = ModelKind::raf;
  rf_task.n = raf_task.n = 3;
  rf_task.d = raf_task.d = 2;
  rf_task.k = 6;
  EXPECT_EQ(model_spec(rf_task, config).sampling, RfSampling::full);
  const std::string full_text = canonical_text(config);
  EXPECT_EQ(full_text.find("rf-sampling"), std::string::npos);  // old files still resume
  config.rf_sampling = RfSampling::marginal;
  EXPECT_EQ(model_spec(rf_task, config).sampling, RfSampling::marginal);
  EXPECT_EQ(model_spec(raf_task, config).sampling, RfSampling::full);
  EXPECT_NE(canonical_text(config).find("rf-sampling = marginal\n"), std::string::npos);
  // Without rf among the models the study runs, marginal changes no task: the text is full's,
  // so that the two resume each other.
  config.grid.models = {ModelKind::raf};
  config.grid.gen_models = {ModelKind::rf};  // of the gen experiment, which this study does not run
  EXPECT_FALSE(has_marginal_sampler_model(config));
  EXPECT_EQ(canonical_text(config).find("rf-sampling"), std::string::npos);
  config.grid.experiments = {Experiment::ws, Experiment::gen};
  EXPECT_TRUE(has_marginal_sampler_model(config));
  EXPECT_NE(canonical_text(config).find("rf-sampling = marginal\n"), std::string::npos);
}

}  // namespace
}  // namespace wordsens
