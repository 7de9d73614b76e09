#pragma once
// Kernel-form minimum-norm heads (docs/METHOD.md §7). Everything is expressed through the Gram
// matrix of the N training samples plus the test sample X and one Φ_extᵀC product, so that models
// whose Φ is too large to store (rf streams V in row blocks) compute each at the price of one pass
// over their weights: memory O((N+1)² + (N+1)·c + p·c) here, for c ≤ 5 coefficient columns.
#include <span>

#include "core/types.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {

/// Above this 2-norm condition number a Gram matrix counts as numerically singular: its inverse
/// would lose more than 12 of the 16 significant digits of double precision.
inline constexpr double kMaxGramCondition = 1e12;

/// Solves K a = b for a symmetric positive definite Gram matrix K through its symmetric
/// eigendecomposition, which also gives cond(K) = λ_max / λ_min exactly in the 2-norm and
/// detects singularity (λ_min ≤ 0 or cond(K) > kMaxGramCondition) before anything is solved.
class GramSolver {
 public:
  /// `name` appears in the error message (e.g. "K", "extended K").
  GramSolver(const Eigen::MatrixXd& K, const char* name);

  [[nodiscard]] double condition() const { return condition_; }
  /// K⁻¹ B, with one step of iterative refinement (the residual is formed against K itself).
  [[nodiscard]] Eigen::MatrixXd solve(const Eigen::MatrixXd& B) const;

 private:
  [[nodiscard]] Eigen::MatrixXd apply_inverse(const Eigen::MatrixXd& B) const;
  Eigen::MatrixXd K_;
  Eigen::MatrixXd eigenvectors_;
  Eigen::VectorXd eigenvalues_;
  double condition_ = 0.0;
};

/// Which vectors `fit_heads` must produce besides φ(X) and θ*.
struct HeadRequest {
  bool finetune = false;            // θ_f
  bool retrain = false;             // θ_r
  bool retrain_projection = false;  // u = P⊥φ(X)
};

/// The trained heads of one problem, all as p-vectors (empty when not requested).
struct HeadVectors {
  Vector phi_x;                  // φ(X)
  Vector theta_star;             // θ* = Φ⁺Y = Φᵀ K⁻¹ Y
  Vector theta_finetune;         // θ* + φ(X)(y − φ(X)ᵀθ*)/‖φ(X)‖²
  Vector theta_retrain;          // [Φ; φ(X)ᵀ]⁺ [Y; y]
  Vector u_retrain;              // P⊥φ(X): φ(X) minus its projection onto the rows of Φ
  double cond_K = 0.0;           // cond(ΦΦᵀ) of the N training samples
  double cond_K_extended = 0.0;  // cond of the (N+1)×(N+1) Gram (0 unless retrain was asked)
};

/// Fits the heads with one `model.gram` call on the N+1 samples [train; test] (this order:
/// make_gen_feature_map registers them so for rf's marginal sampler) and one
/// `model.transpose_apply` with all needed coefficient columns. Throws std::invalid_argument
/// when N ≥ p (the interpolator is not unique and K is singular) and std::runtime_error when
/// K (or, for retrain, the extended Gram) is numerically singular, saying which.
[[nodiscard]] HeadVectors fit_heads(const FeatureMap& model, std::span<const Matrix> train,
                                    const Vector& train_labels, const Matrix& test,
                                    double test_label, const HeadRequest& request);

/// The same with the texts already in one list, the N training texts then X (the order of
/// `gram`'s samples): the other form copies them into such a list, at n = 120, d = 768,
/// N = 1300 a gigabyte of fresh memory per task.
[[nodiscard]] HeadVectors fit_heads(const FeatureMap& model,
                                    std::span<const Matrix> train_then_test,
                                    const Vector& train_labels, double test_label,
                                    const HeadRequest& request);

}  // namespace wordsens
