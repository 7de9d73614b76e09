#include "estimators/min_norm_head.hpp"

#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/symmetric_eigen.hpp"

namespace wordsens {

GramSolver::GramSolver(const Eigen::MatrixXd& K, const char* name) : K_(K) {
  auto eig = symmetric_eigen(K);
  if (!eig.converged) {
    throw std::runtime_error(std::string(name) + ": symmetric eigendecomposition did not converge");
  }
  eigenvalues_ = std::move(eig.values);  // ascending
  eigenvectors_ = std::move(eig.vectors);
  const double lambda_min = eigenvalues_(0);
  const double lambda_max = eigenvalues_(eigenvalues_.size() - 1);
  condition_ = lambda_min > 0.0 ? lambda_max / lambda_min : std::numeric_limits<double>::infinity();
  if (!(lambda_min > 0.0) || !(condition_ <= kMaxGramCondition)) {
    std::ostringstream msg;
    msg << name << " is numerically singular (cond = " << condition_
        << ", lambda_min = " << lambda_min << ", lambda_max = " << lambda_max
        << "): some features are (nearly) linearly dependent";
    throw std::runtime_error(msg.str());
  }
}

Eigen::MatrixXd GramSolver::apply_inverse(const Eigen::MatrixXd& B) const {
  return eigenvectors_ *
         (eigenvalues_.cwiseInverse().asDiagonal() * (eigenvectors_.transpose() * B));
}

Eigen::MatrixXd GramSolver::solve(const Eigen::MatrixXd& B) const {
  Eigen::MatrixXd a = apply_inverse(B);
  // One refinement step: the eigendecomposition's backward error is amplified by cond(K) in
  // the solution; correcting with the true residual recovers most of the lost digits.
  a += apply_inverse(B - K_ * a);
  return a;
}

HeadVectors fit_heads(const FeatureMap& model, std::span<const Matrix> train,
                      const Vector& train_labels, const Matrix& test, double test_label,
                      const HeadRequest& request) {
  std::vector<Matrix> samples(train.begin(), train.end());
  samples.push_back(test);
  return fit_heads(model, samples, train_labels, test_label, request);
}

HeadVectors fit_heads(const FeatureMap& model, std::span<const Matrix> samples,
                      const Vector& train_labels, double test_label, const HeadRequest& request) {
  if (samples.empty()) throw std::invalid_argument("fit_heads: no test text");
  const Index N = static_cast<Index>(samples.size()) - 1;
  const Index p = model.feature_dim();
  if (N < 1) throw std::invalid_argument("the training set is empty (N = 0)");
  if (train_labels.size() != N) {
    throw std::invalid_argument("training labels and samples differ in number");
  }
  if (N >= p) {
    std::ostringstream msg;
    msg << "N ≥ p (N = " << N << " training samples, p = " << p
        << " features): the min-norm interpolator needs N < p (K = ΦΦᵀ is singular)";
    throw std::invalid_argument(msg.str());
  }

  // One Gram call on [train; test]: rf regenerates V once for K, k = Φφ(X) and ‖φ(X)‖². A model
  // that builds Φ builds it once here, for K and for Φᵀ C below (the (N + 1)·p numbers a gen
  // task holds anyway: the default gram builds them too).
  const StreamedFeatures* streamed = streamed_features(model);
  std::optional<Matrix> phi;
  if (streamed == nullptr) phi = model.feature_matrix(samples);
  const Eigen::MatrixXd G = phi ? gram_of_rows(*phi) : streamed->gram(samples);
  const Eigen::MatrixXd K = G.topLeftCorner(N, N);
  const Eigen::VectorXd k_x = G.col(N).head(N);

  HeadVectors out;
  const GramSolver solver(K, "K");
  out.cond_K = solver.condition();

  // Right-hand sides for K: Y, and Φφ(X) for the projection P⊥φ(X).
  Eigen::MatrixXd rhs(N, request.retrain_projection ? 2 : 1);
  rhs.col(0) = train_labels;
  if (request.retrain_projection) rhs.col(1) = k_x;
  const Eigen::MatrixXd sol = solver.solve(rhs);
  const Eigen::VectorXd alpha = sol.col(0);
  const double t0 = k_x.dot(alpha);  // φ(X)ᵀθ*
  const double phi_norm2 = G(N, N);  // ‖φ(X)‖²

  // Coefficient columns c over the N+1 samples, so that Φ_extᵀc is the wanted p-vector.
  std::vector<Eigen::VectorXd> columns;
  auto add = [&](Eigen::VectorXd c) {
    columns.push_back(std::move(c));
    return static_cast<Index>(columns.size() - 1);
  };
  Eigen::VectorXd c(N + 1);
  c.setZero();
  c(N) = 1.0;
  const Index col_phi = add(c);
  c.head(N) = alpha;
  c(N) = 0.0;
  const Index col_star = add(c);
  Index col_finetune = -1, col_retrain = -1, col_u = -1;
  if (request.finetune) {
    if (!(phi_norm2 > 0.0)) throw std::runtime_error("finetune: φ(X) is zero");
    c.head(N) = alpha;
    c(N) = (test_label - t0) / phi_norm2;
    col_finetune = add(c);
  }
  if (request.retrain) {
    const GramSolver extended(G, "extended K (Gram of the training samples and X)");
    out.cond_K_extended = extended.condition();
    Eigen::VectorXd y_ext(N + 1);
    y_ext.head(N) = train_labels;
    y_ext(N) = test_label;
    col_retrain = add(extended.solve(y_ext));
  }
  if (request.retrain_projection) {
    c.head(N) = -sol.col(1);
    c(N) = 1.0;
    col_u = add(c);
  }

  Matrix C(N + 1, static_cast<Index>(columns.size()));
  for (std::size_t j = 0; j < columns.size(); ++j) C.col(static_cast<Index>(j)) = columns[j];
  // p × columns: one more pass over V for rf.
  const Matrix P = phi ? Matrix(phi->transpose() * C) : streamed->transpose_apply(samples, C);

  out.phi_x = P.col(col_phi);
  out.theta_star = P.col(col_star);
  if (col_finetune >= 0) out.theta_finetune = P.col(col_finetune);
  if (col_retrain >= 0) out.theta_retrain = P.col(col_retrain);
  if (col_u >= 0) out.u_retrain = P.col(col_u);
  return out;
}

}  // namespace wordsens
