// The hidden layers' batch (models/shared/hidden_layers.cpp) against the plain products: up to
// 8 points a call it multiplies each k × k layer without a GEMM, by blocks of rows, and beyond
// that with Eigen's GEMM. Both paths must give, to rounding, H_L = ϕ(V_L ⋯ ϕ(Z_1)) and its
// back-propagation G ← Z_1-gradient of ⟨G, H_L⟩, for widths that split into several row blocks.
#include "models/shared/hidden_layers.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "models/shared/activation.hpp"

namespace wordsens {
namespace {

Matrix gaussian(std::mt19937_64& gen, Index rows, Index cols, double scale) {
  std::normal_distribution<double> normal(0.0, scale);
  Matrix M(rows, cols);
  for (Index i = 0; i < M.size(); ++i) M.data()[i] = normal(gen);
  return M;
}

TEST(HiddenLayerBatch, EqualsThePlainProductsOnBothPaths) {
  std::mt19937_64 gen(17);
  for (const Index k : {Index{5}, Index{150}, Index{1000}}) {  // 1000: 49 rows a block, 21 blocks
    std::vector<Matrix> layers;
    for (int l = 0; l < 3; ++l) layers.push_back(gaussian(gen, k, k, std::sqrt(2.0 / k)));
    for (const Activation act : {Activation::relu, Activation::tanh}) {
      for (const Index B : {Index{1}, Index{4}, Index{8}, Index{9}, Index{12}}) {
        const Matrix Z1 = gaussian(gen, k, B, 1.0);
        HiddenLayerBatch batch(act, layers);
        const Matrix H = batch.forward(Z1);
        // Plain: one point at a time, matrix–vector products.
        std::vector<Matrix> Z{Z1};
        for (const Matrix& V : layers) {
          Matrix A = Z.back();
          activate_in_place(act, A);
          Z.push_back(V * A);
        }
        Matrix expected = Z.back();
        activate_in_place(act, expected);
        const double scale = expected.norm();
        EXPECT_LE((H - expected).norm(), 1e-13 * scale) << k << " " << B;

        Matrix G = gaussian(gen, k, B, 1.0), G_plain = G;
        batch.backward(G);
        for (std::size_t l = Z.size(); l-- > 0;) {
          multiply_by_derivative(act, Z[l], G_plain);
          if (l > 0) G_plain = layers[l - 1].transpose() * G_plain;
        }
        EXPECT_LE((G - G_plain).norm(), 1e-13 * G_plain.norm()) << k << " " << B;
      }
    }
  }
}

}  // namespace
}  // namespace wordsens
