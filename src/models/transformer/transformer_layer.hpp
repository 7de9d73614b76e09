#pragma once
// One attention layer of the transformer family (docs/METHOD.md §2), evaluated from scratch for a
// text and differentiated by hand (reverse mode) with respect to chosen rows of it. Its parts,
// each optional:
//
//   U  = LN(X) row by row (pre-norm; else U = X), LN(x) = (x − mean x)/√(var x + ε), no gain/bias;
//   head h = 0 … H−1, columns C_h = [h·d_h, (h+1)·d_h), d_h = d/H:
//     S_h = (U Q)_{:,C_h} (U K)_{:,C_h}ᵀ / √d_h   (no K: the keys are U itself, and H = 1),
//     causal mask: S_h,jl = −∞ for l > j (word j attends to words 0 … j only),
//     A_h = rows(S_h)                            (softmax or the row-normalised ReLU),
//     Y_{:,C_h} = A_h (U V)_{:,C_h}              (no V: the values are U);
//   Z  = Y O (no O: Z = Y);   H1 = X + Z (residual; else H1 = Z);
//   out = H1 + ϕ(LN(H1) W1) W2 (MLP; else out = H1);   φ(X) = vec(out).
//
// raf is Q = W alone (S = X W Xᵀ/√d); raf_v adds V = W_V, O = W_O; mhraf has Q, K, V, O and H
// heads; block has everything. Rows of U, U Q, U K and U V depend on their own row of X only, so
// a pass after a few rows of X moved recomputes those rows of them, and the rest (scores, heads,
// O, MLP) from scratch: O(m·d² + n²·d + n·d² + n·d·k) per point, in matrix–matrix products.
#include <span>
#include <vector>

#include "core/types.hpp"
#include "models/shared/feature_map.hpp"
#include "models/shared/score_rows.hpp"

namespace wordsens {

/// LayerNorm's ε (added to each row's variance, as in common transformer implementations).
inline constexpr double kLayerNormEpsilon = 1e-5;

struct TransformerLayer {
  Index heads = 1;
  AttentionKind rows = AttentionKind::softmax;
  AttentionMask mask = AttentionMask::none;
  bool pre_norm = false;                     // U = LN(X)
  bool residual = false;                     // H1 = X + Z
  Activation activation = Activation::relu;  // ϕ of the MLP
  Matrix Q, K, V, O;                         // d × d each; K, V, O may be empty (absent)
  Matrix W1, W2;  // the MLP, d × k and k × d; both empty when there is none

  [[nodiscard]] Index d() const { return Q.rows(); }
  [[nodiscard]] bool has_mlp() const { return W1.size() > 0; }
  /// std::invalid_argument naming the problem unless the shapes and heads fit together.
  void check() const;
};

/// What the backward pass needs of one forward pass (every matrix reused across calls).
struct TransformerPass {
  Matrix X;                  // the text
  Matrix U;                  // LN(X) (pre-norm) or X
  Vector u_scale;            // 1/√(var + ε) of each row of X (pre-norm)
  Matrix QU, KU, VU;         // U Q, U K (or U), U V (or U)
  std::vector<Matrix> S, A;  // per head: masked scores, attention
  Matrix Y;                  // the heads, concatenated
  Matrix H1;                 // X + Y O (or Y, Y O, X + Y)
  Matrix U2;                 // LN(H1) (MLP)
  Vector u2_scale;
  Matrix P;    // LN(H1) W1, the MLP's pre-activations
  Matrix G;    // ϕ(P), reused from point to point
  Matrix out;  // φ(X), n × d
};

/// The forward pass of X (n × d), into `pass`.
void transformer_forward(const TransformerLayer& layer, const Matrix& X, TransformerPass& pass);

/// The forward pass again after the rows `moved` of pass.X changed (pass holding a forward pass
/// of a text that differs from pass.X in those rows only).
void transformer_forward_moved(const TransformerLayer& layer, std::span<const Index> moved,
                               TransformerPass& pass);

/// Scratch of transformer_backward, kept by evaluators across calls.
struct TransformerBackwardScratch {
  Matrix dH1, dG, dU2, dY, dA, dS, dQU, dKU, dVU, dU;
};

/// Row j of `grad` (|moved| × d) ← ∂⟨C, out⟩/∂(row moved[j] of X) at `pass`, for the cotangent C
/// (n × d) of out.
void transformer_backward(const TransformerLayer& layer, const TransformerPass& pass,
                          const Matrix& C, std::span<const Index> moved, Matrix& grad,
                          TransformerBackwardScratch& scratch);

}  // namespace wordsens
