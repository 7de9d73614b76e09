#include "models/rf_evaluator.hpp"

#include "models/activation.hpp"

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

 private:
  Activation act_;
  Index position_;
  Vector a_;  // V vec(X)
  Matrix B_;  // V_i
  Vector base_, z_, g_;
};

}  // namespace

std::unique_ptr<PositionEvaluator> make_rf_evaluator(Activation activation, Index position,
                                                     Vector a, Matrix B) {
  return std::make_unique<RfEvaluator>(activation, position, std::move(a), std::move(B));
}

}  // namespace wordsens
