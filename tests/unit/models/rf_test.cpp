// rf specifics: the certified bound on ‖V_i‖₂ (tight against a dense SVD), the Lanczos bound on
// hard spectra, and the streamed gram / transpose_apply.
#include <gtest/gtest.h>

#include <Eigen/SVD>
#include <cstring>

#include "model_cases.hpp"
#include "models/bounds/lanczos.hpp"
#include "models/rf/rf.hpp"

namespace wordsens {
namespace {

bool bitwise_equal(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

double dense_norm(const Matrix& B) {
  return Eigen::JacobiSVD<Eigen::MatrixXd>(B).singularValues()(0);
}

TEST(RfBound, WordBlockNormIsAnUpperBoundAndTight) {
  // Small d: the Krylov space exhausts R^d. d = 40 < k: the run may stop on convergence.
  for (const auto& [n, d, k] : {std::array<Index, 3>{4, 6, 30}, std::array<Index, 3>{3, 40, 60},
                                std::array<Index, 3>{5, 8, 5}}) {
    const RandomFeatures model({ModelKind::rf, n, d, k, 1, Activation::relu}, {3, 9});
    double worst = 0.0;
    for (Index i = 0; i < n; ++i) {
      const double exact = dense_norm(model.word_block(i));
      const double bound = model.word_block_norm_bound(i);
      EXPECT_GE(bound, exact) << "n=" << n << " d=" << d << " k=" << k << " i=" << i;
      // The single-precision route (no spectrum cached): rounding terms ≈ γ_32(2⁻²⁴)·d/2.
      EXPECT_LE(bound, exact * (1 + 1e-4)) << "n=" << n << " d=" << d << " k=" << k;
      worst = std::max(worst, bound);
    }
    const Matrix X = testing::test_sample(n, d);
    const auto U = model.sensitivity_upper_bound(X);
    ASSERT_TRUE(U.has_value());
    EXPECT_EQ(U->scope, BoundScope::all_positions);
    EXPECT_GE(U->value, worst * std::sqrt(static_cast<double>(d)));
    EXPECT_LE(U->value, worst * std::sqrt(static_cast<double>(d)) * (1 + 1e-12));
  }
}

TEST(RfBound, BoundsTheSensitivityAtManyPoints) {
  const Index n = 5, d = 4;
  std::mt19937_64 gen(5);
  for (std::uint32_t task = 0; task < 20; ++task) {
    const RandomFeatures model(
        {ModelKind::rf, n, d, 25, 1, task % 2 ? Activation::tanh : Activation::relu}, {8, task});
    const Matrix X = testing::test_sample(n, d, task);
    const double U = model.sensitivity_upper_bound(X)->value;
    const Vector phi = model.features(X);
    for (int t = 0; t < 5; ++t) {
      const Index i = static_cast<Index>(gen() % n);
      Matrix Xp = X;
      Xp.row(i) += testing::ball_point(gen, d, true).transpose();
      EXPECT_LE((model.features(Xp) - phi).norm(), U);
    }
  }
}

TEST(RfBound, GuidedDirectionIsTheTopRightSingularVector) {
  const RandomFeatures model({ModelKind::rf, 3, 6, 30, 1, Activation::relu}, {3, 9});
  const Matrix B = model.word_block(1);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(B, Eigen::ComputeThinV);
  const Vector top = svd.matrixV().col(0);
  const Vector guided = *model.guided_direction(testing::test_sample(3, 6), 1);
  EXPECT_NEAR(std::abs(guided.dot(top)), 1.0, 1e-10);
}

TEST(Lanczos, FindsTheTopEigenvalueFromAnOrthogonalStart) {
  // M = diag(1, 2, …, 9, 10, 10): the start e₀ spans an invariant subspace, so the bound is only
  // right if the iteration restarts orthogonally and covers the whole space.
  const Index dim = 11;
  Vector diag(dim);
  for (Index j = 0; j < dim; ++j) diag(j) = std::min<double>(static_cast<double>(j + 1), 10.0);
  const SymmetricOperator apply = [&diag](const Vector& v, Vector& out) {
    out = diag.cwiseProduct(v);
  };
  const LanczosResult r = lanczos_top_eigen(apply, dim, Vector::Unit(dim, 0));
  EXPECT_TRUE(r.exhausted);
  EXPECT_GE(r.upper_bound(), 10.0);
  EXPECT_NEAR(r.upper_bound(), 10.0, 1e-9);
}

TEST(Lanczos, ResidualBoundHoldsWhenStoppedEarly) {
  // A clustered top of the spectrum in dimension 200, stopped after 25 steps.
  const Index dim = 200;
  Vector diag(dim);
  for (Index j = 0; j < dim; ++j) diag(j) = 1.0 + 0.001 * static_cast<double>(j);
  const SymmetricOperator apply = [&diag](const Vector& v, Vector& out) {
    out = diag.cwiseProduct(v);
  };
  LanczosOptions options;
  options.max_iterations = 25;
  const LanczosResult r = lanczos_top_eigen(apply, dim, Vector::Ones(dim), options);
  EXPECT_FALSE(r.exhausted);
  EXPECT_EQ(r.iterations, 25);
  EXPECT_LE(r.ritz_value, diag(dim - 1));
  EXPECT_GE(r.upper_bound(), diag(dim - 1));
}

// The streamed gram / transpose_apply (row blocks of V against all samples at once, GEMM)
// against V generated whole and against Φ from feature_matrix (one sample at a time); repeated
// calls give the same bits.
TEST(RfStreaming, GramAndTransposeApplyMatchDenseComputation) {
  const Index n = 4, d = 3, N = 6;
  const Index k = 2 * RandomFeatures::kRowBlock + 44;  // two full blocks and a partial one
  for (Activation act : {Activation::relu, Activation::tanh}) {
    const RandomFeatures model({ModelKind::rf, n, d, k, 1, act}, {4, 2});
    std::vector<Matrix> samples;
    for (std::uint32_t m = 0; m < N; ++m) samples.push_back(synthetic_sample(1, n, d, 0, m));
    std::mt19937_64 gen(3);
    Matrix C(N, 2);
    C.col(0) = testing::gaussian_vector(gen, N);
    C.col(1) = testing::gaussian_vector(gen, N);

    const Matrix V = model.weights().window(0, 0, k, n * d);
    Matrix X_all(N, n * d);
    for (Index m = 0; m < N; ++m) X_all.row(m) = vec(samples[static_cast<std::size_t>(m)]);
    const Matrix pre = X_all * V.transpose();
    const Matrix Phi_dense =
        act == Activation::relu ? Matrix(pre.cwiseMax(0.0)) : Matrix(pre.array().tanh().matrix());
    const Matrix K_dense = Phi_dense * Phi_dense.transpose();
    const Matrix theta_dense = Phi_dense.transpose() * C;
    const Matrix K_streamed = model.gram(samples);
    const Matrix theta_streamed = model.transpose_apply(samples, C);
    EXPECT_LE((K_streamed - K_dense).norm(), 1e-13 * K_dense.norm());
    EXPECT_LE((theta_streamed - theta_dense).norm(), 1e-13 * theta_dense.norm());
    EXPECT_TRUE(bitwise_equal(K_streamed, K_streamed.transpose()));
    EXPECT_TRUE(bitwise_equal(model.gram(samples), K_streamed));
    EXPECT_TRUE(bitwise_equal(model.transpose_apply(samples, C), theta_streamed));

    const Matrix Phi = model.feature_matrix(samples);
    const Matrix K_plain = Phi * Phi.transpose();
    const Matrix theta_plain = Phi.transpose() * C;
    EXPECT_LE((K_streamed - K_plain).norm(), 1e-12 * K_plain.norm());
    EXPECT_LE((theta_streamed - theta_plain).norm(), 1e-12 * theta_plain.norm());
  }
}

// rf declares the streamed products, with either sampler (the trained head then never stores
// Φ); a model that builds Φ does not.
TEST(RfStreaming, OnlyRfDeclaresStreamedFeatures) {
  const ModelSpec rf{.kind = ModelKind::rf, .n = 4, .d = 3, .k = 20};
  EXPECT_NE(streamed_features(*make_feature_map(rf, {1, 0})), nullptr);
  ModelSpec marginal = rf;
  marginal.sampling = RfSampling::marginal;
  const std::vector<Index> positions{0};
  EXPECT_NE(streamed_features(*make_feature_map(marginal, {1, 0}, positions)), nullptr);
  for (const ModelKind kind : {ModelKind::drf, ModelKind::raf, ModelKind::raf_relu}) {
    const ModelSpec other{.kind = kind, .n = 4, .d = 3, .k = 20};
    EXPECT_EQ(streamed_features(*make_feature_map(other, {1, 0})), nullptr) << to_string(kind);
  }
}

TEST(RfStreaming, FeaturesAreTheDenseProduct) {
  const Index n = 3, d = 5, k = 2 * RandomFeatures::kPassRows + 7;  // partial last chunk
  const RandomFeatures model({ModelKind::rf, n, d, k, 1, Activation::relu}, {4, 2});
  const Matrix X = testing::test_sample(n, d);
  const Matrix V = model.weights().window(0, 0, k, n * d);
  EXPECT_LT(testing::relative_difference(model.features(X), (V * vec(X)).cwiseMax(0.0)), 1e-14);
  // V_i is V's column block of word i, and V ~ N(0, 1/D).
  EXPECT_TRUE(bitwise_equal(model.word_block(2), V.middleCols(2 * d, d)));
  EXPECT_NEAR(model.weights().stddev(), std::sqrt(1.0 / (n * d)), 1e-15);
}

TEST(RfStreaming, PreactivationCacheNeverServesAnotherSample) {
  const Index n = 3, d = 4;
  const RandomFeatures model({ModelKind::rf, n, d, 50, 1, Activation::relu}, {4, 2});
  const Matrix X = testing::test_sample(n, d, 1), Y = testing::test_sample(n, d, 2);
  const Matrix V = model.weights().window(0, 0, 50, n * d);
  const Vector aX = model.preactivation(X);
  Matrix X_changed = X;
  X_changed(2, 3) = std::nextafter(X(2, 3), 10.0);  // one ulp: a different sample
  EXPECT_LT(testing::relative_difference(model.preactivation(Y), V * vec(Y)), 1e-14);
  EXPECT_LT(testing::relative_difference(model.preactivation(X_changed), V * vec(X_changed)),
            1e-14);
  EXPECT_FALSE(bitwise_equal(model.preactivation(X_changed), aX));
  EXPECT_TRUE(bitwise_equal(model.preactivation(X), aX));
  EXPECT_TRUE(bitwise_equal(model.preactivation(X), aX));  // served from the cache
}

}  // namespace
}  // namespace wordsens
