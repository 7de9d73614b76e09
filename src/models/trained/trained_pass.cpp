#include "models/trained/trained_pass.hpp"

#include <cmath>

#include "models/shared/activation.hpp"
#include "models/shared/layer_norm.hpp"
#include "models/shared/score_rows.hpp"

namespace wordsens {
namespace {

/// Row r of X, Q, K, V from row r of U.
void input_row(const EncoderLayer& w, Index r, TrainedPass& p) {
  p.X.row(r) = p.U.row(r).cwiseProduct(w.input.gamma) + w.input.beta;
  p.Q.row(r).noalias() = p.X.row(r) * w.WQ;
  p.Q.row(r) += w.bQ;
  p.K.row(r).noalias() = p.X.row(r) * w.WK;
  p.K.row(r) += w.bK;
  p.V.row(r).noalias() = p.X.row(r) * w.WV;
  p.V.row(r) += w.bV;
}

/// out ← γ ⊙ LN(in) + β row by row, keeping the normalised rows and their scales.
void layer_norm_rows(const Matrix& in, const LayerNormAffine& affine, double epsilon,
                     Matrix& normalised, Vector& scale, Matrix& out) {
  const Index n = in.rows();
  normalised.resize(n, in.cols());
  scale.resize(n);
  for (Index r = 0; r < n; ++r) scale(r) = layer_norm_row(in.row(r), normalised.row(r), epsilon);
  out = normalised;
  out.array().rowwise() *= affine.gamma.array();
  out.rowwise() += affine.beta;
}

/// dIn ← the pullback of dOut through out = γ ⊙ LN(in) + β (row by row).
void layer_norm_rows_backward(const Matrix& normalised, const Vector& scale,
                              const LayerNormAffine& affine, const Matrix& d_out, Matrix& d_in) {
  d_in.resize(d_out.rows(), d_out.cols());
  for (Index r = 0; r < d_out.rows(); ++r) {
    d_in.row(r) = layer_norm_row_backward(normalised.row(r), scale(r),
                                          d_out.row(r).cwiseProduct(affine.gamma));
  }
}

/// Everything after the inputs' rows: the heads, W_O and, for the whole layer, the rest.
void heads_and_after(const EncoderLayer& w, TrainedPart part, TrainedPass& p) {
  const Index n = p.U.rows(), d = w.d(), H = w.heads, dh = d / H;
  const double c = 1.0 / std::sqrt(static_cast<double>(dh));
  p.A.resize(static_cast<std::size_t>(H));
  p.Y.resize(n, d);
  Matrix scores;
  for (Index h = 0; h < H; ++h) {
    scores.noalias() = c * (p.Q.middleCols(h * dh, dh) * p.K.middleCols(h * dh, dh).transpose());
    Matrix& A = p.A[static_cast<std::size_t>(h)];
    A = normalise_scores(scores, AttentionKind::softmax);
    p.Y.middleCols(h * dh, dh).noalias() = A * p.V.middleCols(h * dh, dh);
  }
  p.M.noalias() = p.Y * w.WO;
  p.M.rowwise() += w.bO;
  if (part == TrainedPart::attention) {
    p.out = p.M;
    return;
  }
  trained_after_attention(w, p);
}

}  // namespace

void trained_after_attention(const EncoderLayer& w, TrainedPass& p) {
  p.R = p.X + p.M;
  layer_norm_rows(p.R, w.norm1, w.epsilon, p.H_hat, p.h_scale, p.H);
  p.P.noalias() = p.H * w.W1;
  p.P.rowwise() += w.b1;
  p.G = p.P;  // into the pass's own storage: n × width, reused from point to point
  activate_in_place(Activation::gelu, p.G);
  p.R = p.H;
  p.R.noalias() += p.G * w.W2;
  p.R.rowwise() += w.b2;
  layer_norm_rows(p.R, w.norm2, w.epsilon, p.R_hat, p.r_scale, p.out);
}

void trained_after_attention_backward(const EncoderLayer& w, const TrainedPass& p, const Matrix& C,
                                      TrainedBackwardScratch& s) {
  layer_norm_rows_backward(p.R_hat, p.r_scale, w.norm2, C, s.dR);
  s.dG.noalias() = s.dR * w.W2.transpose();
  multiply_by_derivative(Activation::gelu, p.P, s.dG);
  s.dH = s.dR;
  s.dH.noalias() += s.dG * w.W1.transpose();
  layer_norm_rows_backward(p.H_hat, p.h_scale, w.norm1, s.dH, s.dM);
}

void trained_forward(const EncoderLayer& layer, TrainedPart part, const Matrix& U,
                     TrainedPass& pass) {
  const Index n = U.rows(), d = layer.d();
  pass.U = U;
  pass.X.resize(n, d);
  pass.Q.resize(n, d);
  pass.K.resize(n, d);
  pass.V.resize(n, d);
  for (Index r = 0; r < n; ++r) input_row(layer, r, pass);
  heads_and_after(layer, part, pass);
}

void trained_forward_moved(const EncoderLayer& layer, TrainedPart part,
                           std::span<const Index> moved, TrainedPass& pass) {
  if (moved.empty()) return;
  for (const Index r : moved) input_row(layer, r, pass);
  heads_and_after(layer, part, pass);
}

void trained_backward(const EncoderLayer& w, TrainedPart part, const TrainedPass& p,
                      const Matrix& C, std::span<const Index> moved, Matrix& grad,
                      TrainedBackwardScratch& s) {
  const Index d = w.d(), H = w.heads, dh = d / H;
  const Index m = static_cast<Index>(moved.size());
  const double c = 1.0 / std::sqrt(static_cast<double>(dh));
  // The whole layer: out = LN₂(H + GELU(H W₁ + b₁) W₂ + b₂), H = LN₁(X + M).
  if (part == TrainedPart::layer) {
    trained_after_attention_backward(w, p, C, s);  // ∂(X + M)
  } else {
    s.dM = C;
  }
  // M = Y W_O + b_O; per head Y_h = A_h V_h, A_h = softmax(c Q_h K_hᵀ): only the moved rows of
  // Q, K and V depend on the moves.
  s.dY.noalias() = s.dM * w.WO.transpose();
  s.dQ.setZero(m, d);
  s.dK.setZero(m, d);
  s.dV.setZero(m, d);
  for (Index h = 0; h < H; ++h) {
    const Matrix& A = p.A[static_cast<std::size_t>(h)];
    s.dA.noalias() = s.dY.middleCols(h * dh, dh) * p.V.middleCols(h * dh, dh).transpose();
    normalise_scores_backward(A, A, s.dA, AttentionKind::softmax, s.dS);  // softmax: no S needed
    for (Index j = 0; j < m; ++j) {
      const Index r = moved[static_cast<std::size_t>(j)];
      s.dQ.row(j).segment(h * dh, dh).noalias() = c * s.dS.row(r) * p.K.middleCols(h * dh, dh);
      s.dK.row(j).segment(h * dh, dh).noalias() =
          c * s.dS.col(r).transpose() * p.Q.middleCols(h * dh, dh);
      s.dV.row(j).segment(h * dh, dh).noalias() =
          A.col(r).transpose() * s.dY.middleCols(h * dh, dh);
    }
  }
  s.dX.noalias() = s.dQ * w.WQ.transpose();
  s.dX.noalias() += s.dK * w.WK.transpose();
  s.dX.noalias() += s.dV * w.WV.transpose();
  grad.resize(m, d);
  for (Index j = 0; j < m; ++j) {
    const Index r = moved[static_cast<std::size_t>(j)];
    if (part == TrainedPart::layer) s.dX.row(j) += s.dM.row(r);  // the residual X + M
    grad.row(j) = s.dX.row(j).cwiseProduct(w.input.gamma);
  }
}

}  // namespace wordsens
