// The Cholesky certificate of λ_max (models/bounds/spectral_certificate.hpp) against long-double
// eigenvalues of the very matrix it is given, on spectra chosen to defeat the Lanczos estimate
// (clusters, a top eigenvector orthogonal to the start vector, negative definite, zero), and the
// norm bounds built on it against long-double singular values.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <cmath>
#include <random>
#include <stdexcept>

#include "bound_checks.hpp"
#include "model_cases.hpp"
#include "models/bounds/spectral_certificate.hpp"

namespace wordsens {
namespace {

/// λ_max of the double matrix G (symmetric) in long double.
long double reference_lambda_max(const Eigen::MatrixXd& G) {
  const testing::LongMatrix L = G.cast<long double>();
  return Eigen::SelfAdjointEigenSolver<testing::LongMatrix>(L, Eigen::EigenvaluesOnly)
      .eigenvalues()
      .maxCoeff();
}

/// Q diag(lambda) Qᵀ with a random orthogonal Q (computed in double, then symmetrised).
Eigen::MatrixXd with_spectrum(const Vector& lambda, std::mt19937_64& gen) {
  const Index m = lambda.size();
  Eigen::MatrixXd A(m, m);
  for (Index j = 0; j < m; ++j) A.col(j) = testing::gaussian_vector(gen, m);
  const Eigen::MatrixXd Q = Eigen::HouseholderQR<Eigen::MatrixXd>(A).householderQ();
  Eigen::MatrixXd G = Q * lambda.asDiagonal() * Q.transpose();
  return 0.5 * (G + G.transpose());
}

void expect_certified_and_tight(const Eigen::MatrixXd& G, double relative, const char* what) {
  const LambdaMaxCertificate c = certify_lambda_max(G);
  const long double exact = reference_lambda_max(G);
  const long double scale =
      std::max({std::abs(exact), static_cast<long double>(G.cwiseAbs().maxCoeff()), 1e-300L});
  EXPECT_GE(static_cast<long double>(c.upper), exact) << what;
  EXPECT_LE(static_cast<long double>(c.upper), exact + relative * scale) << what;
  EXPECT_FALSE(c.gershgorin) << what;
}

TEST(LambdaMaxCertificate, CertifiesKnownSpectra) {
  std::mt19937_64 gen(5);
  for (const Index m : {1, 2, 7, 40, 150}) {
    Vector spread(m), cluster(m), negative(m);
    for (Index j = 0; j < m; ++j) {
      spread(j) = 1.0 + static_cast<double>(j);
      cluster(j) = 1.0 - 1e-9 * static_cast<double>(j);  // top eigenvalues 1e-9 apart
      negative(j) = -1.0 - static_cast<double>(j);
    }
    expect_certified_and_tight(with_spectrum(spread, gen), 1e-9, "spread");
    expect_certified_and_tight(with_spectrum(cluster, gen), 1e-9, "cluster");
    expect_certified_and_tight(with_spectrum(negative, gen), 1e-9, "negative definite");
  }
  // Zero matrix; and a top eigenvector (e_0 − e_1)/√2 orthogonal to Lanczos' start vector 1, so
  // the estimate starts in an invariant subspace that misses the top.
  expect_certified_and_tight(Eigen::MatrixXd::Zero(5, 5), 1e-12, "zero");
  const Index m = 30;
  Vector v = Vector::Zero(m);
  v(0) = 1 / std::sqrt(2.0);
  v(1) = -1 / std::sqrt(2.0);
  const Eigen::MatrixXd G = Eigen::MatrixXd::Identity(m, m) + 9.0 * v * v.transpose();
  expect_certified_and_tight(G, 1e-9, "top eigenvector orthogonal to the start");
}

TEST(LambdaMaxCertificate, WrongEstimatesCostTightnessNeverValidity) {
  // Estimates far below λ_max force repeated factorisations (each on μI − Ĝ rebuilt from the copy
  // kept in the upper triangle); estimates far above give a loose but valid bound at once.
  std::mt19937_64 gen(9);
  Vector lambda(40);
  for (Index j = 0; j < 40; ++j) lambda(j) = 0.5 + 0.05 * static_cast<double>(j);
  const Eigen::MatrixXd G = with_spectrum(lambda, gen);
  const long double exact = reference_lambda_max(G);
  for (const double estimate : {-3.0, 0.0, 1.0, 2.4, 2.45, 10.0}) {
    const LambdaMaxCertificate c = certify_lambda_max(G, estimate);
    EXPECT_GE(static_cast<long double>(c.upper), exact) << estimate;
    if (estimate < 2.4) {
      EXPECT_GT(c.factorisations, 1) << estimate;
    }
    EXPECT_LE(c.upper, std::max(estimate, 2.45) + 8 * (2.45 - std::min(estimate, 2.45)) + 1e-9)
        << estimate;
  }
}

TEST(LambdaMaxCertificate, GershgorinFallbackIsValid) {
  // No factorisation allowed (or all failing: an estimate far below): the fallback bound
  // max_j Σ_l |Ĝ_jl| must still be above λ_max, and is computed from Ĝ, not from the factors.
  std::mt19937_64 gen(10);
  Vector lambda(25);
  for (Index j = 0; j < 25; ++j) lambda(j) = -2.0 + 0.2 * static_cast<double>(j);
  const Eigen::MatrixXd G = with_spectrum(lambda, gen);
  const long double exact = reference_lambda_max(G);
  double gershgorin = 0.0;
  for (Index j = 0; j < 25; ++j) gershgorin = std::max(gershgorin, G.row(j).cwiseAbs().sum());
  for (const int allowed : {0, 3}) {
    const LambdaMaxCertificate c = certify_lambda_max(G, -50.0, allowed);
    EXPECT_TRUE(c.gershgorin) << allowed;
    EXPECT_EQ(c.factorisations, allowed);
    EXPECT_GE(static_cast<long double>(c.upper), exact);
    EXPECT_NEAR(c.upper, gershgorin, 1e-12 * gershgorin);
  }
}

TEST(LambdaMaxCertificate, UsesOnlyTheLowerTriangleAndRejectsNonFinite) {
  std::mt19937_64 gen(6);
  Vector lambda(6);
  lambda << 3, 2, 1, 0, -1, 5;
  Eigen::MatrixXd G = with_spectrum(lambda, gen);
  const double clean = certify_lambda_max(G).upper;
  Eigen::MatrixXd garbage = G;
  garbage.triangularView<Eigen::StrictlyUpper>().setConstant(1e6);
  EXPECT_EQ(certify_lambda_max(garbage).upper, clean);
  garbage(4, 1) = std::nan("");
  EXPECT_THROW((void)certify_lambda_max(garbage), std::domain_error);
}

TEST(LambdaMaxCertificate, TheFactorisationFailsBelowTheTopEigenvalue) {
  // The certificate has teeth: μI − G is not positive definite for μ below λ_max, and Cholesky
  // says so, even 1e-6 below.
  std::mt19937_64 gen(7);
  Vector lambda(50);
  for (Index j = 0; j < 50; ++j) lambda(j) = 1.0 + 0.01 * static_cast<double>(j);
  const Eigen::MatrixXd G = with_spectrum(lambda, gen);
  const double top = static_cast<double>(reference_lambda_max(G));
  for (const double mu : {top * (1 - 1e-6), top * (1 - 1e-3)}) {
    const Eigen::MatrixXd A = mu * Eigen::MatrixXd::Identity(50, 50) - G;
    EXPECT_NE(Eigen::LLT<Eigen::MatrixXd>(A).info(), Eigen::Success) << mu;
  }
  const Eigen::MatrixXd A = top * (1 + 1e-9) * Eigen::MatrixXd::Identity(50, 50) - G;
  EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(A).info(), Eigen::Success);
}

TEST(CertifiedNorm, AboveAndWithinTheLongDoubleSingularValue) {
  std::mt19937_64 gen(8);
  for (const auto& [rows, cols] :
       {std::array<Index, 2>{1, 1}, std::array<Index, 2>{50, 3}, std::array<Index, 2>{3, 50},
        std::array<Index, 2>{200, 40}, std::array<Index, 2>{40, 40}}) {
    Matrix B(rows, cols);
    for (Index r = 0; r < rows; ++r) B.row(r) = testing::gaussian_vector(gen, cols).transpose();
    const long double exact = testing::reference_norm(B);
    const double U = certified_norm(B);
    EXPECT_GE(static_cast<long double>(U), exact) << rows << "x" << cols;
    EXPECT_LE(static_cast<long double>(U), exact * (1 + 1e-9L)) << rows << "x" << cols;
  }
  EXPECT_LT(certified_norm(Matrix::Zero(4, 3)), 1e-150);  // only the underflow terms
}

}  // namespace
}  // namespace wordsens
