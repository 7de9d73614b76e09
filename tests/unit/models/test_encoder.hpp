#pragma once
// A small encoder layer with random weights (std::mt19937, never Eigen's Random()) for the
// trained models' tests: the scales of a BERT layer (unit-ish LayerNorm gains, biases of a few
// tenths, queries and keys large enough that softmax and GELU are well inside their non-linear
// range), so that the checks see every part of the layer at work.
#include <cmath>
#include <memory>
#include <random>

#include "models/shared/encoder_layer.hpp"

namespace wordsens::testing {

inline std::shared_ptr<const EncoderLayer> test_encoder(Index d, Index heads, Index width,
                                                        std::uint64_t seed = 7) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  const auto matrix = [&](Index rows, Index cols, double scale) {
    Matrix M(rows, cols);
    for (Index r = 0; r < rows; ++r)
      for (Index c = 0; c < cols; ++c) M(r, c) = scale * normal(gen);
    return M;
  };
  const auto row = [&](Index size, double mean, double scale) {
    RowVector v(size);
    for (Index j = 0; j < size; ++j) v(j) = mean + scale * normal(gen);
    return v;
  };
  const auto norm = [&] { return LayerNormAffine{row(d, 1.0, 0.2), row(d, 0.0, 0.2)}; };
  const double unit = 1.0 / std::sqrt(static_cast<double>(d));
  auto w = std::make_shared<EncoderLayer>();
  w->layer = 2;
  w->heads = heads;
  w->epsilon = 1e-12;
  w->input = norm();
  w->WQ = matrix(d, d, 2.0 * unit);
  w->WK = matrix(d, d, 2.0 * unit);
  w->WV = matrix(d, d, unit);
  w->WO = matrix(d, d, unit);
  w->bQ = row(d, 0.0, 0.3);
  w->bK = row(d, 0.0, 0.3);
  w->bV = row(d, 0.0, 0.3);
  w->bO = row(d, 0.0, 0.3);
  w->norm1 = norm();
  w->W1 = matrix(d, width, unit);
  w->b1 = row(width, 0.0, 0.3);
  w->W2 = matrix(width, d, 1.0 / std::sqrt(static_cast<double>(width)));
  w->b2 = row(d, 0.0, 0.3);
  w->norm2 = norm();
  w->check();
  return w;
}

/// `spec` with the test encoder of its d (heads: `heads`, which must divide d).
inline ModelSpec with_test_encoder(ModelSpec spec, Index heads) {
  spec.encoder = test_encoder(spec.d, heads, 3 * spec.d);
  return spec;
}

}  // namespace wordsens::testing
