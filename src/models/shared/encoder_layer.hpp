#pragma once
// The trained weights of one layer of a pretrained BERT-family encoder (post-LayerNorm, multi-head
// self-attention with biases, GELU feed-forward), as the trained models use them
// (models/trained/trained.hpp). The io layer reads them from the encoder's files
// (io/inputs/encoder_weights.hpp); tests make small ones in memory. The matrices are stored to act
// on the right of row vectors (x W + b), the transpose of the file's (out × in) layout.
//
// Layer ℓ's input is the output of the LayerNorm that closes layer ℓ − 1 (the embedding layer's
// for ℓ = 1): X = γ₀ ⊙ U + β₀ row by row, U the LayerNorm's normalised rows (mean 0, variance
// var/(var + ε) ≈ 1, norm ≈ √d). The models take U, so that a row's ball of radius √d is the ball
// of its own norm (docs/METHOD.md §2, "Trained layers"), and apply γ₀, β₀ themselves.
#include <string>

#include "core/types.hpp"

namespace wordsens {

/// A LayerNorm's gain γ and bias β (1 × d each).
struct LayerNormAffine {
  RowVector gamma, beta;
};

struct EncoderLayer {
  Index layer = 1;  // ℓ ≥ 1: the encoder's layer ℓ (its input: layer ℓ − 1's states)
  Index heads = 1;  // H; each head d/H wide
  double epsilon = 1e-12;  // every LayerNorm's ε
  LayerNormAffine input;   // γ₀, β₀ of the LayerNorm that produced layer ℓ − 1's states
  Matrix WQ, WK, WV, WO;   // d × d
  RowVector bQ, bK, bV, bO;
  LayerNormAffine norm1;  // after the attention's residual
  Matrix W1;              // d × width (the feed-forward's first product)
  RowVector b1;
  Matrix W2;  // width × d
  RowVector b2;
  LayerNormAffine norm2;  // after the feed-forward's residual
  std::string source;     // where the weights were read ("" for weights made in memory)
  std::string sha256;     // the weights file's SHA-256, hex ("" for weights made in memory)

  [[nodiscard]] Index d() const { return WQ.rows(); }
  [[nodiscard]] Index width() const { return W1.cols(); }
  /// std::invalid_argument naming the first array whose shape does not fit d, width and H.
  void check() const;
};

}  // namespace wordsens
