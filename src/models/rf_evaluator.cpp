#include "models/rf_evaluator.hpp"

#include <algorithm>

#include "models/activation.hpp"
#include "models/tall_products.hpp"

namespace wordsens {
namespace {

class RfEvaluator final : public PositionEvaluator {
 public:
  RfEvaluator(Activation act, Index position, Vector a, Matrix B)
      : act_(act), position_(position), a_(std::move(a)), B_(std::move(B)) {
    activate(act_, a_, base_);
    z_ = a_;
  }
  [[nodiscard]] Index position() const override { return position_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  // O(k·d): one k × d matrix–vector product.
  void features_at(const Vector& delta, Vector& out) override {
    z_.noalias() = B_ * delta;
    z_ += a_;
    activate(act_, z_, out);
  }
  // O(k·d): Bᵀ(c ⊙ ϕ'(a + BΔ)).
  void pullback(const Vector& cotangent, Vector& grad) override {
    g_ = cotangent;
    multiply_by_derivative(act_, z_, g_);
    grad.noalias() = B_.transpose() * g_;
  }

  // O(k·d) per column as two GEMMs, V_i read once per block of columns instead of once per
  // column (V_i is 708 MB at n = 150, d = 768, k = D: reading it dominates a GEMV).
  void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) override {
    const Index k = B_.rows(), columns = deltas.cols();
    values.resize(columns);
    if (grads != nullptr) grads->resize(B_.cols(), columns);
    const Index width = std::max<Index>(1, kBlockDoubles / std::max<Index>(k, 1));
    for (Index c0 = 0; c0 < columns; c0 += width) {
      const Index w = std::min(width, columns - c0);
      D_ = deltas.middleCols(c0, w);
      tall_product(B_, D_, Z_);
      Z_.colwise() += a_;
      if (act_ == Activation::relu) {
        P_ = Z_.cwiseMax(0.0);
      } else {
        P_ = Z_.array().tanh().matrix();
      }
      R_ = P_.colwise() - base_;  // φ' − φ
      values.segment(c0, w) = R_.colwise().squaredNorm().transpose();
      if (grads == nullptr) continue;
      // The cotangent 2(φ' − φ) times ϕ'(z): ReLU' = [z > 0], tanh' = 1 − tanh².
      if (act_ == Activation::relu) {
        R_ = (Z_.array() > 0.0).select(2.0 * R_.array(), 0.0).matrix();
      } else {
        R_.array() *= 2.0 * (1.0 - P_.array().square());
      }
      G_.resize(B_.cols(), w);
      tall_transpose_product(B_, R_, G_);
      grads->middleCols(c0, w) = G_;
    }
  }

 private:
  Activation act_;
  Index position_;
  Vector a_;  // V vec(X)
  Matrix B_;  // V_i
  Vector base_, z_, g_;
  // Batches (column-major: a column is one point): the points, their preactivations, ϕ of
  // them, φ' − φ, the gradients.
  Eigen::MatrixXd D_, Z_, P_, R_, G_;
  // A block of columns holds at most this many doubles per k-row matrix (Z_, P_, R_: 3 × 16 MB
  // on top of V_i; at k = D = 115200 a block is 18 points, more than an ascent round has).
  static constexpr Index kBlockDoubles = Index{1} << 21;
};

}  // namespace

std::unique_ptr<PositionEvaluator> make_rf_evaluator(Activation activation, Index position,
                                                     Vector a, Matrix B) {
  return std::make_unique<RfEvaluator>(activation, position, std::move(a), std::move(B));
}

}  // namespace wordsens
