#pragma once
// The trained encoder layer (models/shared/encoder_layer.hpp) evaluated from scratch for a text,
// and differentiated by hand (reverse mode) with respect to chosen rows of it: the reference
// computation of the trained models (trained.hpp) and their evaluator of word sets.
//
//   X  = γ₀ ⊙ U + β₀ row by row (U: the previous LayerNorm's normalised rows, the sample);
//   Q  = X W_Q + b_Q,  K = X W_K + b_K,  V = X W_V + b_V;
//   head h = 0 … H−1, columns C_h = [h·d_h, (h+1)·d_h), d_h = d/H:
//     A_h = softmax_rows(Q_{:,C_h} K_{:,C_h}ᵀ / √d_h),  Y_{:,C_h} = A_h V_{:,C_h};
//   M  = Y W_O + b_O                                    (trained_attn: φ(U) = vec(M));
//   H  = LN₁(X + M),  P = H W₁ + b₁,  out = LN₂(H + GELU(P) W₂ + b₂)
//                                                       (trained_layer: φ(U) = vec(out)),
// LN(r) = γ ⊙ (r − mean r)/√(var r + ε) + β, GELU exact (x·Φ(x)), as BERT computes them.
//
// Rows of X, Q, K and V depend on their own row of U only, so a pass after a few rows of U moved
// recomputes those rows of them and the rest from scratch: O(m·d² + n²·d + n·d² + n·d·w) per
// point (w the feed-forward's width), in matrix–matrix products.
#include <span>
#include <vector>

#include "core/types.hpp"
#include "models/shared/encoder_layer.hpp"

namespace wordsens {

/// What a trained model maps a text to: the layer's multi-head attention, or the whole layer.
enum class TrainedPart { attention, layer };

/// What the backward pass needs of one forward pass (every matrix reused across calls).
struct TrainedPass {
  Matrix U;               // the text
  Matrix X;               // γ₀ ⊙ U + β₀
  Matrix Q, K, V;         // X W + b
  std::vector<Matrix> A;  // per head: the attention
  Matrix Y;               // the heads, concatenated
  Matrix M;               // Y W_O + b_O
  Matrix R;               // X + M, then H + GELU(P) W₂ + b₂ (scratch of the whole layer)
  Matrix H_hat;           // (X + M) normalised (LN₁ before its gain and bias)
  Vector h_scale;         // 1/√(var + ε) of each row of X + M
  Matrix H;               // LN₁(X + M)
  Matrix P;               // H W₁ + b₁
  Matrix G;               // GELU(P)
  Matrix R_hat;           // (H + G W₂ + b₂) normalised (LN₂ before its gain and bias)
  Vector r_scale;
  Matrix out;  // φ(U), n × d
};

/// The forward pass of U (n × d), into `pass`.
void trained_forward(const EncoderLayer& layer, TrainedPart part, const Matrix& U,
                     TrainedPass& pass);

/// The forward pass again after the rows `moved` of pass.U changed (pass holding a forward pass
/// of a text that differs from pass.U in those rows only).
void trained_forward_moved(const EncoderLayer& layer, TrainedPart part,
                           std::span<const Index> moved, TrainedPass& pass);

/// Scratch of trained_backward, kept by evaluators across calls.
struct TrainedBackwardScratch {
  Matrix dR, dH, dG, dM, dY, dA, dS, dQ, dK, dV, dX;
};

/// The whole layer after its attention: H, P, G and out from pass.X and pass.M.
void trained_after_attention(const EncoderLayer& layer, TrainedPass& pass);

/// scratch.dM ← ∂⟨C, out⟩/∂(X + M) through trained_after_attention at `pass`.
void trained_after_attention_backward(const EncoderLayer& layer, const TrainedPass& pass,
                                      const Matrix& C, TrainedBackwardScratch& scratch);

/// Row j of `grad` (|moved| × d) ← ∂⟨C, out⟩/∂(row moved[j] of U) at `pass`, for the cotangent C
/// (n × d) of out.
void trained_backward(const EncoderLayer& layer, TrainedPart part, const TrainedPass& pass,
                      const Matrix& C, std::span<const Index> moved, Matrix& grad,
                      TrainedBackwardScratch& scratch);

}  // namespace wordsens
