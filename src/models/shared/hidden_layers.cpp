#include "models/shared/hidden_layers.hpp"

#include <utility>

#include "models/shared/activation.hpp"

namespace wordsens {

HiddenLayerBatch::HiddenLayerBatch(Activation act, std::span<const Matrix> hidden)
    : act_(act), hidden_(hidden), Z_(hidden.size() + 1), H_(hidden.size() + 1) {}

Matrix& HiddenLayerBatch::forward(Matrix first) {
  Z_[0] = std::move(first);
  H_[0] = Z_[0];
  activate_in_place(act_, H_[0]);
  for (std::size_t l = 1; l < Z_.size(); ++l) {
    Z_[l].noalias() = hidden_[l - 1] * H_[l - 1];
    H_[l] = Z_[l];
    activate_in_place(act_, H_[l]);
  }
  return H_.back();
}

void HiddenLayerBatch::backward(Matrix& G) const {
  for (std::size_t l = Z_.size(); l-- > 0;) {
    multiply_by_derivative(act_, Z_[l], G);
    if (l > 0) G = hidden_[l - 1].transpose() * G;
  }
}

void HiddenLayerBatch::sensitivity_objective(Matrix first, const Vector& base, Vector& values,
                                             Matrix* gradient) {
  Matrix& R = forward(std::move(first));  // φ(Δ_b) − base, column b
  R.colwise() -= base;
  values = R.colwise().squaredNorm().transpose();
  if (gradient == nullptr) return;
  *gradient = 2.0 * R;  // ∂f/∂φ
  backward(*gradient);
}

}  // namespace wordsens
