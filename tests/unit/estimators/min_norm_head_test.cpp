// The kernel-form heads against explicit dense pseudo-inverses (docs/METHOD.md §7).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/synthetic.hpp"
#include "estimators/min_norm_head.hpp"
#include "unit/estimators/test_models.hpp"

namespace wordsens {
namespace {

using testing::TanhFeatureMap;

struct Problem {
  std::vector<Matrix> train;
  Vector labels;
  Matrix test;
  double y = 1.0;
};

Problem make_problem(Index n, Index d, Index N, std::uint32_t trial) {
  Problem pr;
  const Vector w = synthetic_label_direction(5, n, d, trial);
  pr.test = synthetic_sample(5, n, d, trial, 0);
  pr.y = synthetic_label(pr.test, w);
  pr.labels.resize(N);
  for (Index m = 0; m < N; ++m) {
    pr.train.push_back(synthetic_sample(5, n, d, trial, static_cast<std::uint32_t>(m + 1)));
    pr.labels(m) = synthetic_label(pr.train.back(), w);
  }
  return pr;
}

double relative_error(const Vector& a, const Vector& b) { return (a - b).norm() / b.norm(); }

/// Φ⁺ b through a rank-revealing orthogonal decomposition of the dense Φ.
Vector dense_pinv_solve(const Eigen::MatrixXd& phi, const Vector& b) {
  return phi.completeOrthogonalDecomposition().solve(b);
}

TEST(MinNormHead, KernelFormEqualsDensePseudoInverseBothModes) {
  const Index n = 3, d = 4, N = 9, p = 20;
  const TanhFeatureMap model(n, d, p);
  for (std::uint32_t trial = 0; trial < 3; ++trial) {
    const Problem pr = make_problem(n, d, N, trial);
    const HeadVectors h =
        fit_heads(model, pr.train, pr.labels, pr.test, pr.y,
                  {.finetune = true, .retrain = true, .retrain_projection = true});
    const Eigen::MatrixXd phi = model.feature_matrix(pr.train);
    const Vector phi_x = model.features(pr.test);
    ASSERT_EQ(h.phi_x.size(), p);
    EXPECT_LT(relative_error(h.phi_x, phi_x), 1e-14);

    const Vector theta_star = dense_pinv_solve(phi, pr.labels);
    EXPECT_LT(relative_error(h.theta_star, theta_star), 1e-8);
    // Also against the SVD: θ* = V Σ⁻¹ Uᵀ Y.
    const Eigen::BDCSVD<Eigen::MatrixXd> svd(phi, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Vector theta_svd = svd.matrixV() * (svd.singularValues().cwiseInverse().asDiagonal() *
                                              (svd.matrixU().transpose() * pr.labels));
    EXPECT_LT(relative_error(h.theta_star, theta_svd), 1e-8);

    Eigen::MatrixXd stacked(N + 1, p);
    stacked << phi, phi_x.transpose();
    Vector y_ext(N + 1);
    y_ext << pr.labels, pr.y;
    EXPECT_LT(relative_error(h.theta_retrain, dense_pinv_solve(stacked, y_ext)), 1e-8);

    const Vector theta_f =
        theta_star + phi_x * (pr.y - phi_x.dot(theta_star)) / phi_x.squaredNorm();
    EXPECT_LT(relative_error(h.theta_finetune, theta_f), 1e-8);

    // P⊥φ(X) = (I − Φ⁺Φ) φ(X).
    const Eigen::MatrixXd pinv = phi.completeOrthogonalDecomposition().pseudoInverse();
    const Vector u = phi_x - pinv * (phi * phi_x);
    EXPECT_LT(relative_error(h.u_retrain, u), 1e-8);

    // Both trained heads interpolate the new sample, and θ* the training set.
    EXPECT_NEAR(phi_x.dot(h.theta_finetune), pr.y, 1e-8);
    EXPECT_NEAR(phi_x.dot(h.theta_retrain), pr.y, 1e-8);
    EXPECT_LT((phi * h.theta_star - pr.labels).norm(), 1e-8 * std::sqrt(double(N)));
    EXPECT_LT((phi * h.theta_retrain - pr.labels).norm(), 1e-8 * std::sqrt(double(N)));
    // retrain = θ* + u (y − t0)/‖u‖² (the min-norm correction lies in span(rows of Φ)⊥).
    const Vector retrain_by_u = theta_star + u * (pr.y - phi_x.dot(theta_star)) / u.squaredNorm();
    EXPECT_LT(relative_error(h.theta_retrain, retrain_by_u), 1e-8);

    // cond(K) in the 2-norm: ratio of extreme singular values of K.
    const Eigen::MatrixXd K = phi * phi.transpose();
    const Eigen::JacobiSVD<Eigen::MatrixXd> ksvd(K);
    const Vector s = ksvd.singularValues();
    EXPECT_NEAR(h.cond_K, s(0) / s(s.size() - 1), 1e-6 * h.cond_K);
  }
}

// A model that does not stream Φ (no StreamedFeatures) gets it built once for both of the
// head's products: every sample's features computed once, and the same bits as building Φ for
// each product.
TEST(MinNormHead, DenseFeaturesAreComputedOnceAndGiveTheTwoPassBits) {
  const Index n = 3, d = 4, N = 9, p = 20;
  const TanhFeatureMap model(n, d, p);
  ASSERT_EQ(streamed_features(model), nullptr);
  const Problem pr = make_problem(n, d, N, 1);
  const long before = model.feature_calls();
  const HeadVectors h = fit_heads(model, pr.train, pr.labels, pr.test, pr.y, {.finetune = true});
  EXPECT_EQ(model.feature_calls() - before, N + 1);

  // The same steps as fit_heads, with Φ built for each of the two products.
  std::vector<Matrix> samples = pr.train;
  samples.push_back(pr.test);
  const Eigen::MatrixXd G = gram_of_rows(model.feature_matrix(samples));
  const GramSolver solver(G.topLeftCorner(N, N), "K");
  Eigen::MatrixXd rhs(N, 1);
  rhs.col(0) = pr.labels;
  const Eigen::VectorXd alpha = solver.solve(rhs).col(0);
  const Eigen::VectorXd k_x = G.col(N).head(N);
  Matrix C = Matrix::Zero(N + 1, 3);
  C(N, 0) = 1.0;
  C.col(1).head(N) = alpha;
  C.col(2).head(N) = alpha;
  C(N, 2) = (pr.y - k_x.dot(alpha)) / G(N, N);
  const Matrix P = model.feature_matrix(samples).transpose() * C;
  EXPECT_EQ(h.phi_x, Vector(P.col(0)));
  EXPECT_EQ(h.theta_star, Vector(P.col(1)));
  EXPECT_EQ(h.theta_finetune, Vector(P.col(2)));
  EXPECT_EQ(h.cond_K, solver.condition());
}

TEST(MinNormHead, OnlyRequestedVectorsAreProduced) {
  const TanhFeatureMap model(2, 3, 12);
  const Problem pr = make_problem(2, 3, 5, 1);
  const HeadVectors h = fit_heads(model, pr.train, pr.labels, pr.test, pr.y, {});
  EXPECT_EQ(h.theta_star.size(), 12);
  EXPECT_EQ(h.theta_finetune.size(), 0);
  EXPECT_EQ(h.theta_retrain.size(), 0);
  EXPECT_EQ(h.u_retrain.size(), 0);
  EXPECT_GT(h.cond_K, 1.0);
}

TEST(MinNormHead, NAtLeastPIsAnInvalidArgumentNamingIt) {
  const TanhFeatureMap model(2, 3, 6);
  for (const Index N : {6, 8}) {
    const Problem pr = make_problem(2, 3, N, 0);
    try {
      (void)fit_heads(model, pr.train, pr.labels, pr.test, pr.y, {.finetune = true});
      FAIL() << "expected std::invalid_argument for N = " << N;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("N ≥ p"), std::string::npos) << e.what();
    }
  }
}

TEST(MinNormHead, SingularKIsARuntimeErrorNamingKAndItsCondition) {
  const TanhFeatureMap model(2, 3, 12);
  Problem pr = make_problem(2, 3, 5, 0);
  pr.train[3] = pr.train[1];  // a repeated text: two identical rows of Φ
  try {
    (void)fit_heads(model, pr.train, pr.labels, pr.test, pr.y, {.finetune = true});
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("K is numerically singular (cond = "), std::string::npos) << what;
  }
}

TEST(MinNormHead, RetrainOnATrainingTextIsSingularExtendedK) {
  const TanhFeatureMap model(2, 3, 12);
  Problem pr = make_problem(2, 3, 5, 0);
  pr.test = pr.train[2];  // X is not new: [Φ; φ(X)ᵀ] has a repeated row
  EXPECT_NO_THROW((void)fit_heads(model, pr.train, pr.labels, pr.test, pr.y, {.finetune = true}));
  try {
    (void)fit_heads(model, pr.train, pr.labels, pr.test, pr.y, {.retrain = true});
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("extended K"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wordsens
