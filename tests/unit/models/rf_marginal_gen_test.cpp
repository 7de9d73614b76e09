// rf's exact marginal sampler for several samples (gen mode, models/rf/rf_marginal.hpp): the joint
// law of the preactivations of all samples and of V_P matches the full sampler's (exact moments,
// also when the residual covariance is singular), the trained head's D1 and E have the full
// sampler's distribution (two-sample KS tests, with a wrong law the test must reject), the
// streamed Gram matrix equals the plain one, the features gram keeps for transpose_apply give its
// product bitwise, and results are bitwise reproducible.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>

#include "core/gaussian.hpp"
#include "data/synthetic.hpp"
#include "estimators/trained_head.hpp"
#include "model_cases.hpp"
#include "models/rf/rf.hpp"
#include "models/rf/rf_marginal.hpp"

namespace wordsens {
namespace {

ModelSpec marginal_spec(Index n, Index d, Index k, Activation act = Activation::relu) {
  ModelSpec spec{ModelKind::rf, n, d, k, 1, act};
  spec.sampling = RfSampling::marginal;
  return spec;
}

std::vector<const Matrix*> pointers(const std::vector<Matrix>& samples) {
  std::vector<const Matrix*> out;
  for (const Matrix& X : samples) out.push_back(&X);
  return out;
}

std::vector<Matrix> distinct_samples(Index n, Index d, Index M, std::uint32_t trial) {
  std::vector<Matrix> samples;
  for (Index m = 0; m < M; ++m) {
    samples.push_back(synthetic_sample(5, n, d, trial, static_cast<std::uint32_t>(m)));
  }
  return samples;
}

/// Over many task ids: the covariance over samples of A[r, :] (rows r pooled, they are iid) must
/// be X_all X_allᵀ / D, and E[A[r, s]·(V_P x_{t,P})[r]] = ⟨x_{s,P}, x_{t,P}⟩ / D. Tolerances are
/// 5 standard errors of each entry.
/// `silent`: a sample whose words outside P are zeroed (G singular exactly), or −1.
void expect_full_sampler_moments(Index n, Index d, Index M, const std::vector<Index>& P,
                                 bool expect_cholesky, Index silent = -1) {
  const Index k = 4, D = n * d;
  std::vector<Matrix> samples = distinct_samples(n, d, M, 1);
  if (silent >= 0) {
    for (Index j = 0; j < n; ++j) {
      if (std::find(P.begin(), P.end(), j) == P.end()) {
        samples[static_cast<std::size_t>(silent)].row(j).setZero();
      }
    }
  }
  EXPECT_EQ(MarginalRandomFeatures(marginal_spec(n, d, k), {7, 0}, P, pointers(samples))
                .factor_is_cholesky(),
            expect_cholesky);
  Matrix X_all(M, D), X_P = Matrix::Zero(M, D);
  for (Index s = 0; s < M; ++s) {
    X_all.row(s) = vec(samples[static_cast<std::size_t>(s)]);
    for (const Index i : P) X_P.row(s).segment(i * d, d) = X_all.row(s).segment(i * d, d);
  }
  const Matrix sigma = X_all * X_all.transpose() / static_cast<double>(D);
  const Matrix cross = X_all * X_P.transpose() / static_cast<double>(D);  // = X_P X_Pᵀ / D
  const int T = 3000;
  Matrix cov = Matrix::Zero(M, M), cross_cov = Matrix::Zero(M, M);
  Vector mean = Vector::Zero(M);
  for (int t = 0; t < T; ++t) {
    const MarginalRandomFeatures model(marginal_spec(n, d, k), {7, static_cast<std::uint32_t>(t)},
                                       P, pointers(samples));
    Matrix A(k, M), B = Matrix::Zero(k, M);
    for (Index s = 0; s < M; ++s) {
      A.col(s) = model.preactivation(samples[static_cast<std::size_t>(s)]);
      for (const Index i : P) {
        B.col(s) += model.word_block(i) * samples[static_cast<std::size_t>(s)].row(i).transpose();
      }
    }
    mean += A.colwise().sum().transpose();
    cov.noalias() += A.transpose() * A;
    cross_cov.noalias() += A.transpose() * B;
  }
  const double count = static_cast<double>(T) * static_cast<double>(k);
  mean /= count;
  cov /= count;
  cross_cov /= count;
  for (Index s = 0; s < M; ++s) {
    EXPECT_NEAR(mean(s), 0.0, 5 * std::sqrt(sigma(s, s) / count)) << "s=" << s;
    for (Index t = 0; t < M; ++t) {
      const double se = std::sqrt((sigma(s, s) * sigma(t, t) + sigma(s, t) * sigma(s, t)) / count);
      EXPECT_NEAR(cov(s, t), sigma(s, t), 5 * se) << "s=" << s << " t=" << t;
      const double se_cross =
          std::sqrt((sigma(s, s) * cross(t, t) + cross(s, t) * cross(s, t)) / count);
      EXPECT_NEAR(cross_cov(s, t), cross(s, t), 5 * se_cross) << "s=" << s << " t=" << t;
    }
  }
}

TEST(RfMarginalGen, PreactivationsHaveTheFullSamplersJointMoments) {
  // Positive definite residual covariance: Cholesky factor.
  expect_full_sampler_moments(4, 3, 5, {2}, true);
}

TEST(RfMarginalGen, SingularResidualCovarianceStillGivesTheRightMoments) {
  // Sample 2 has nothing outside P: G has a zero row, Cholesky fails exactly, and the symmetric
  // square root (nonzero for the other samples) must still give the full sampler's law.
  expect_full_sampler_moments(4, 3, 5, {1}, false, 2);
}

TEST(RfMarginalGen, PreactivationsAreExactlyTheFormulaAcrossRowBlocks) {
  // A[r, s] = Σ_{i∈P} (V_i x_{s,i})_r + Σ_t F(s, t)·Z(t, r) with F = chol(G) and Z weights
  // matrix 1 of the task, rebuilt here from the generators for k spanning several row blocks of
  // both preactivation (1024) and gram (256): every block must use its own rows of V and Z.
  const Index n = 4, d = 3, M = 5, k = 2 * MarginalRandomFeatures::kRowBlock + 77;
  const std::vector<Matrix> samples = distinct_samples(n, d, M, 6);
  const std::vector<Index> P{0, 3};
  const MarginalRandomFeatures model(marginal_spec(n, d, k), {9, 4}, P, pointers(samples));
  ASSERT_TRUE(model.factor_is_cholesky());
  const Matrix F = Eigen::LLT<Matrix>(model.residual_covariance()).matrixL();
  const GaussianMatrix Z({Philox(9, Stream::weights), 4, 1}, 1.0);
  const Matrix Zw = Z.window(0, 0, M, k);
  Matrix A = (F * Zw).transpose();  // k × M
  for (const Index i : P) {
    for (Index s = 0; s < M; ++s) {
      A.col(s) += model.word_block(i) * samples[static_cast<std::size_t>(s)].row(i).transpose();
    }
  }
  for (Index s = 0; s < M; ++s) {
    const Vector a = model.preactivation(samples[static_cast<std::size_t>(s)]);
    EXPECT_LE((a - A.col(s)).norm(), 1e-13 * A.col(s).norm()) << "s=" << s;
  }
  const Matrix Phi = A.cwiseMax(0.0).transpose();  // M × k, ReLU
  const Matrix K = Phi * Phi.transpose();
  EXPECT_LE((model.gram(samples) - K).norm(), 1e-12 * K.norm());
}

TEST(RfMarginalGen, OneSampleIsWsModeUpToRounding) {
  const Index n = 5, d = 3, k = 40;
  const Matrix X = synthetic_sample(2, n, d, 0, 0);
  const std::vector<const Matrix*> one{&X};
  const std::vector<Index> P{2};
  const MarginalRandomFeatures gen(marginal_spec(n, d, k), {3, 8}, P, one);
  const MarginalRandomFeatures ws(marginal_spec(n, d, k), {3, 8}, P);
  EXPECT_LT(testing::relative_difference(gen.preactivation(X), ws.preactivation(X)), 1e-14);
}

TEST(RfMarginalGen, ResidualCovarianceIsTheGramOfTheWordsOutsideP) {
  const Index n = 5, d = 3, M = 4;
  const std::vector<Matrix> samples = distinct_samples(n, d, M, 2);
  const std::vector<Index> P{1, 3};
  const MarginalRandomFeatures model(marginal_spec(n, d, 8), {1, 1}, P, pointers(samples));
  for (Index s = 0; s < M; ++s) {
    for (Index t = 0; t < M; ++t) {
      double g = 0.0;
      for (const Index j : {0, 2, 4}) {
        g += samples[static_cast<std::size_t>(s)].row(j).dot(
            samples[static_cast<std::size_t>(t)].row(j));
      }
      EXPECT_NEAR(model.residual_covariance()(s, t), g / (n * d), 1e-14);
    }
  }
}

TEST(RfMarginalGen, StreamedGramAndTransposeApplyEqualThePlainComputation) {
  const Index n = 4, d = 3, M = 7;
  const Index k = 2 * MarginalRandomFeatures::kSampleRowBlock + 37;  // partial last block
  const std::vector<Matrix> samples = distinct_samples(n, d, M, 3);
  std::mt19937_64 gen(5);
  Matrix C(M, 2);
  C.col(0) = testing::gaussian_vector(gen, M);
  C.col(1) = testing::gaussian_vector(gen, M);
  for (const Activation act : {Activation::relu, Activation::tanh}) {
    const std::vector<Index> P{0, 2};
    const MarginalRandomFeatures model(marginal_spec(n, d, k, act), {3, 9}, P, pointers(samples));
    Matrix Phi(M, k);
    for (Index s = 0; s < M; ++s) Phi.row(s) = model.features(samples[static_cast<std::size_t>(s)]);
    const Matrix K = model.gram(samples), theta = model.transpose_apply(samples, C);
    const Matrix K_plain = Phi * Phi.transpose(), theta_plain = Phi.transpose() * C;
    EXPECT_LE((K - K_plain).norm(), 1e-12 * K_plain.norm());
    EXPECT_LE((theta - theta_plain).norm(), 1e-12 * theta_plain.norm());
    // The evaluator of a position in P agrees with the features of the perturbed text.
    const Matrix& X = samples.back();
    auto eval = model.at_position(X, 2);
    EXPECT_LT(testing::relative_difference(eval->base_features(), model.features(X)), 1e-13);
    const Vector delta = testing::ball_point(gen, d, true);
    Vector phi;
    eval->features_at(delta, phi);
    Matrix Xp = X;
    Xp.row(2) += delta.transpose();
    EXPECT_LT(testing::relative_difference(phi, model.features(Xp)), 1e-12);
  }
}

TEST(RfMarginalGen, FeaturesKeptByGramGiveTransposeApplyBitwise) {
  // gram keeps Φ's blocks for the head's Φᵀ C; the same product streamed again (a model that
  // never ran gram) must give the very same bits, and the blocks go with their one use.
  const Index n = 4, d = 3, M = 6;
  const Index k = 3 * MarginalRandomFeatures::kSampleRowBlock + 11;
  const std::vector<Matrix> samples = distinct_samples(n, d, M, 7);
  std::mt19937_64 gen(2);
  Matrix C(M, 3);
  for (Index j = 0; j < C.cols(); ++j) C.col(j) = testing::gaussian_vector(gen, M);
  const std::vector<Index> P{1};
  const MarginalRandomFeatures kept(marginal_spec(n, d, k), {5, 2}, P, pointers(samples));
  const MarginalRandomFeatures streamed(marginal_spec(n, d, k), {5, 2}, P, pointers(samples));
  EXPECT_FALSE(kept.holds_feature_blocks());
  const Matrix K = kept.gram(samples);
  EXPECT_TRUE(kept.holds_feature_blocks());
  const Matrix theta_kept = kept.transpose_apply(samples, C);
  EXPECT_FALSE(kept.holds_feature_blocks()) << "Φ outlived the product it was kept for";
  const Matrix theta_streamed = streamed.transpose_apply(samples, C);
  ASSERT_EQ(theta_kept.rows(), k);
  EXPECT_EQ(std::memcmp(theta_kept.data(), theta_streamed.data(),
                        sizeof(double) * static_cast<std::size_t>(theta_kept.size())),
            0);
  // A second product after the blocks are gone streams them again: still the same bits.
  const Matrix theta_again = kept.transpose_apply(samples, C);
  EXPECT_EQ(std::memcmp(theta_again.data(), theta_streamed.data(),
                        sizeof(double) * static_cast<std::size_t>(theta_again.size())),
            0);
  EXPECT_EQ(std::memcmp(K.data(), streamed.gram(samples).data(),
                        sizeof(double) * static_cast<std::size_t>(K.size())),
            0);
}

TEST(RfMarginalGen, TakingTheProblemOverGivesTheSameResultsAsCopyingIt) {
  // run_task hands its problem over (no copy of the training texts); the results are bitwise
  // those of the copying form.
  const Index n = 5, d = 3, k = 40, N = 6;
  GenOptions options;
  options.trainings = {Training::finetune, Training::retrain};
  options.objectives = {HeadObjective::loss, HeadObjective::align};
  options.positions = PositionSet::parse("first");
  const GenProblem problem = synthetic_gen_problem(3, n, d, N, 2);
  const auto copying =
      make_gen_feature_map(marginal_spec(n, d, k), {3, 1}, problem, options.positions);
  const auto taking =
      make_gen_feature_map(marginal_spec(n, d, k), {3, 1}, problem, options.positions);
  const auto a = evaluate_generalization(*copying, problem, options, 3, 1);
  GenProblem handed = problem;
  const auto b = evaluate_generalization(*taking, std::move(handed), options, 3, 1);
  ASSERT_EQ(a.size(), 4U);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t j = 0; j < a.size(); ++j) {
    EXPECT_EQ(std::memcmp(&a[j].D1, &b[j].D1, sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(&a[j].E, &b[j].E, sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(&a[j].t1, &b[j].t1, sizeof(double)), 0);
    EXPECT_EQ(a[j].position, b[j].position);
    EXPECT_EQ(a[j].evaluations, b[j].evaluations);
  }
}

TEST(RfMarginalGen, AllPositionsDrawAllOfVAndMatchTheFullSampler) {
  // P = every word: no residual (G = 0, the square-root path), and the blocks are the full
  // sampler's bitwise, so both give the same Gram matrix up to rounding.
  const Index n = 3, d = 2, k = 50, M = 5;
  const std::vector<Matrix> samples = distinct_samples(n, d, M, 4);
  const std::vector<Index> P{0, 1, 2};
  const MarginalRandomFeatures marginal(marginal_spec(n, d, k), {2, 6}, P, pointers(samples));
  EXPECT_FALSE(marginal.factor_is_cholesky());  // G = 0
  const RandomFeatures full({ModelKind::rf, n, d, k, 1, Activation::relu}, {2, 6});
  const Matrix K_full = full.gram(samples);
  EXPECT_LE((marginal.gram(samples) - K_full).norm(), 1e-13 * K_full.norm());
}

TEST(RfMarginalGen, TrainedHeadHasTheFullSamplersDistribution) {
  // D1 and E of the finetuned head (loss objective, positions = first) under both samplers, on
  // the same problems with independent weights (disjoint task ids). KS critical value at
  // α = 0.001 for 200 vs 200 is ≈ 0.195.
  const Index n = 6, d = 4, k = 24, N = 8;
  const std::uint32_t seed = 4, trials = 200;
  GenOptions options;
  options.trainings = {Training::finetune};
  options.objectives = {HeadObjective::loss};
  options.positions = PositionSet::parse("first");
  const ModelSpec full_spec{ModelKind::rf, n, d, k, 1, Activation::relu};
  // Per statistic (D1, E, t0, cond_K): full, marginal, wrong law.
  std::array<std::array<std::vector<double>, 3>, 4> stats;
  auto record = [&](int which, const GenResult& r) {
    stats[0][static_cast<std::size_t>(which)].push_back(r.D1);
    stats[1][static_cast<std::size_t>(which)].push_back(r.E);
    stats[2][static_cast<std::size_t>(which)].push_back(r.t0);
    stats[3][static_cast<std::size_t>(which)].push_back(r.cond_K);
  };
  for (std::uint32_t t = 0; t < trials; ++t) {
    const GenProblem problem = synthetic_gen_problem(seed, n, d, N, t);
    const auto full = make_gen_feature_map(full_spec, {seed, t}, problem, options.positions);
    record(0, evaluate_generalization(*full, problem, options, seed, t).front());
    const std::uint32_t task = 100000 + t;
    const auto marginal =
        make_gen_feature_map(marginal_spec(n, d, k), {seed, task}, problem, options.positions);
    ASSERT_NE(dynamic_cast<const MarginalRandomFeatures*>(marginal.get()), nullptr);
    record(1, evaluate_generalization(*marginal, problem, options, seed, task).front());
    // A wrong law the test must detect: the residual of only one of the five words outside P
    // (the others zeroed in every text of the marginal model's problem).
    GenProblem narrow = problem;
    narrow.test.bottomRows(n - 2).setZero();
    for (Matrix& X : narrow.train) X.bottomRows(n - 2).setZero();
    const auto wrong =
        make_gen_feature_map(marginal_spec(n, d, k), {seed, task}, narrow, options.positions);
    record(2, evaluate_generalization(*wrong, narrow, options, seed, task).front());
  }
  const char* names[] = {"D1", "E", "t0", "cond_K"};
  double most_power = 0.0;
  for (std::size_t q = 0; q < stats.size(); ++q) {
    const double ks = testing::ks_statistic(stats[q][0], stats[q][1]);
    const double ks_wrong = testing::ks_statistic(stats[q][0], stats[q][2]);
    std::printf("%-6s KS(full, marginal) = %.4f   KS(full, wrong law) = %.4f\n", names[q], ks,
                ks_wrong);
    EXPECT_LT(ks, 0.25) << "full and marginal samplers disagree on " << names[q];
    most_power = std::max(most_power, ks_wrong);
  }
  EXPECT_GT(most_power, 0.5) << "the test has no power";
}

TEST(RfMarginalGen, BitwiseReproducibleAndRefusesOtherSamples) {
  const Index n = 5, d = 3, k = 40, N = 6;
  GenOptions options;
  options.trainings = {Training::finetune, Training::retrain};
  options.positions = PositionSet::parse("random:2");
  const GenProblem problem = synthetic_gen_problem(8, n, d, N, 1);
  const auto a = make_gen_feature_map(marginal_spec(n, d, k), {8, 3}, problem, options.positions);
  const auto b = make_gen_feature_map(marginal_spec(n, d, k), {8, 3}, problem, options.positions);
  const auto ra = evaluate_generalization(*a, problem, options, 8, 3);
  const auto rb = evaluate_generalization(*b, problem, options, 8, 3);
  ASSERT_EQ(ra.size(), rb.size());
  for (std::size_t j = 0; j < ra.size(); ++j) {
    EXPECT_EQ(std::memcmp(&ra[j].D1, &rb[j].D1, sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(&ra[j].E, &rb[j].E, sizeof(double)), 0);
    EXPECT_EQ(ra[j].position, rb[j].position);
  }
  // Another task draws other weights.
  const auto c = make_gen_feature_map(marginal_spec(n, d, k), {8, 4}, problem, options.positions);
  EXPECT_NE(evaluate_generalization(*c, problem, options, 8, 4).front().D1, ra.front().D1);

  // Only the registered samples, in their order; only texts that agree with one outside P.
  std::vector<Matrix> samples(problem.train.begin(), problem.train.end());
  samples.push_back(problem.test);
  const StreamedFeatures* streamed = streamed_features(*a);
  ASSERT_NE(streamed, nullptr);
  EXPECT_NO_THROW((void)streamed->gram(samples));
  std::swap(samples.front(), samples.back());
  EXPECT_THROW((void)streamed->gram(samples), std::invalid_argument);
  samples.pop_back();
  EXPECT_THROW((void)streamed->transpose_apply(samples, Matrix::Ones(N, 1)), std::invalid_argument);
  const auto* marginal = dynamic_cast<const MarginalRandomFeatures*>(a.get());
  ASSERT_NE(marginal, nullptr);
  Index outside = 0;
  while (std::find(marginal->positions().begin(), marginal->positions().end(), outside) !=
         marginal->positions().end()) {
    ++outside;
  }
  Matrix other = problem.test;
  other(outside, 0) += 1.0;
  EXPECT_THROW((void)a->features(other), std::invalid_argument);
  Matrix flipped = problem.test;  // two sign flips: a change a weak fingerprint could miss
  flipped(outside, 0) = -flipped(outside, 0);
  flipped(outside, 1) = -flipped(outside, 1);
  EXPECT_THROW((void)a->features(flipped), std::invalid_argument);
  EXPECT_THROW((void)a->at_position(problem.test, outside), std::out_of_range);
}

}  // namespace
}  // namespace wordsens
