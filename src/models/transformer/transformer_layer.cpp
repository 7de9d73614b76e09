#include "models/transformer/transformer_layer.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "models/shared/activation.hpp"
#include "models/shared/layer_norm.hpp"

namespace wordsens {
namespace {

/// Rows `moved` (all when empty) of U, U Q, U K, U V from the same rows of X.
void input_rows(const TransformerLayer& layer, std::span<const Index> moved,
                TransformerPass& pass) {
  const Index n = pass.X.rows();
  const auto one_row = [&](Index r) {
    if (layer.pre_norm) {
      pass.u_scale(r) = layer_norm_row(pass.X.row(r), pass.U.row(r), kLayerNormEpsilon);
    } else {
      pass.U.row(r) = pass.X.row(r);
    }
  };
  if (moved.empty()) {
    pass.U.resize(n, layer.d());
    if (layer.pre_norm) pass.u_scale.resize(n);
    for (Index r = 0; r < n; ++r) one_row(r);
    pass.QU.noalias() = pass.U * layer.Q;
    if (layer.K.size() > 0) pass.KU.noalias() = pass.U * layer.K;
    if (layer.V.size() > 0) pass.VU.noalias() = pass.U * layer.V;
    return;
  }
  for (const Index r : moved) {
    one_row(r);
    pass.QU.row(r).noalias() = pass.U.row(r) * layer.Q;
    if (layer.K.size() > 0) pass.KU.row(r).noalias() = pass.U.row(r) * layer.K;
    if (layer.V.size() > 0) pass.VU.row(r).noalias() = pass.U.row(r) * layer.V;
  }
}

const Matrix& keys(const TransformerLayer& layer, const TransformerPass& pass) {
  return layer.K.size() > 0 ? pass.KU : pass.U;
}
const Matrix& values(const TransformerLayer& layer, const TransformerPass& pass) {
  return layer.V.size() > 0 ? pass.VU : pass.U;
}

/// Everything after the inputs' rows: scores, heads, O, the residual path and the MLP.
void heads_and_after(const TransformerLayer& layer, TransformerPass& pass) {
  const Index n = pass.X.rows(), d = layer.d(), H = layer.heads, dh = d / H;
  const double c = 1.0 / std::sqrt(static_cast<double>(dh));
  const Matrix& KU = keys(layer, pass);
  const Matrix& VU = values(layer, pass);
  pass.S.resize(static_cast<std::size_t>(H));
  pass.A.resize(static_cast<std::size_t>(H));
  pass.Y.resize(n, d);
  for (Index h = 0; h < H; ++h) {
    Matrix& S = pass.S[static_cast<std::size_t>(h)];
    S.noalias() = c * (pass.QU.middleCols(h * dh, dh) * KU.middleCols(h * dh, dh).transpose());
    if (layer.mask == AttentionMask::causal) {
      for (Index j = 0; j + 1 < n; ++j) {
        S.row(j).tail(n - 1 - j).setConstant(-std::numeric_limits<double>::infinity());
      }
    }
    pass.A[static_cast<std::size_t>(h)] = normalise_scores(S, layer.rows);
    pass.Y.middleCols(h * dh, dh).noalias() =
        pass.A[static_cast<std::size_t>(h)] * VU.middleCols(h * dh, dh);
  }
  if (layer.O.size() > 0) {
    pass.H1.noalias() = pass.Y * layer.O;
  } else {
    pass.H1 = pass.Y;
  }
  if (layer.residual) pass.H1 += pass.X;
  if (!layer.has_mlp()) {
    pass.out = pass.H1;
    return;
  }
  pass.U2.resize(n, d);
  pass.u2_scale.resize(n);
  for (Index r = 0; r < n; ++r)
    pass.u2_scale(r) = layer_norm_row(pass.H1.row(r), pass.U2.row(r), kLayerNormEpsilon);
  pass.P.noalias() = pass.U2 * layer.W1;
  pass.G = pass.P;  // into the pass's own storage: n × k, reused from point to point
  activate_in_place(layer.activation, pass.G);
  pass.out = pass.H1;
  pass.out.noalias() += pass.G * layer.W2;
}

}  // namespace

void TransformerLayer::check() const {
  const Index d = Q.rows();
  const auto square = [d](const Matrix& M) {
    return M.size() == 0 || (M.rows() == d && M.cols() == d);
  };
  if (d < 1 || Q.cols() != d || !square(K) || !square(V) || !square(O)) {
    throw std::invalid_argument("transformer layer: Q, K, V and O must be d x d");
  }
  if (heads < 1 || d % heads != 0) {
    throw std::invalid_argument("transformer layer: heads = " + std::to_string(heads) +
                                " must divide d = " + std::to_string(d));
  }
  if (K.size() == 0 && heads != 1) {
    throw std::invalid_argument("transformer layer: keys without K need heads = 1");
  }
  if (has_mlp() != (W2.size() > 0) ||
      (has_mlp() && (W1.rows() != d || W2.cols() != d || W1.cols() != W2.rows()))) {
    throw std::invalid_argument("transformer layer: the MLP must be d x k and k x d");
  }
}

void transformer_forward(const TransformerLayer& layer, const Matrix& X, TransformerPass& pass) {
  pass.X = X;
  input_rows(layer, {}, pass);
  heads_and_after(layer, pass);
}

void transformer_forward_moved(const TransformerLayer& layer, std::span<const Index> moved,
                               TransformerPass& pass) {
  if (moved.empty()) return;
  input_rows(layer, moved, pass);
  heads_and_after(layer, pass);
}

void transformer_backward(const TransformerLayer& layer, const TransformerPass& pass,
                          const Matrix& C, std::span<const Index> moved, Matrix& grad,
                          TransformerBackwardScratch& s) {
  const Index n = pass.X.rows(), d = layer.d(), H = layer.heads, dh = d / H;
  const Index m = static_cast<Index>(moved.size());
  const double c = 1.0 / std::sqrt(static_cast<double>(dh));
  // out = H1 + ϕ(LN(H1) W1) W2.
  s.dH1 = C;
  if (layer.has_mlp()) {
    s.dG.noalias() = C * layer.W2.transpose();
    multiply_by_derivative(layer.activation, pass.P, s.dG);
    s.dU2.noalias() = s.dG * layer.W1.transpose();
    for (Index r = 0; r < n; ++r) {
      s.dH1.row(r) += layer_norm_row_backward(pass.U2.row(r), pass.u2_scale(r), s.dU2.row(r));
    }
  }
  // H1 = (X +) Y O.
  if (layer.O.size() > 0) {
    s.dY.noalias() = s.dH1 * layer.O.transpose();
  } else {
    s.dY = s.dH1;
  }
  // Each head: Y_h = A_h VU_h, A_h = rows(S_h), S_h = c QU_h KU_hᵀ; only the moved rows of QU,
  // KU and VU depend on the moves.
  const Matrix& KU = keys(layer, pass);
  const Matrix& VU = values(layer, pass);
  s.dQU.setZero(m, d);
  s.dKU.setZero(m, d);
  s.dVU.setZero(m, d);
  for (Index h = 0; h < H; ++h) {
    const Matrix& A = pass.A[static_cast<std::size_t>(h)];
    s.dA.noalias() = s.dY.middleCols(h * dh, dh) * VU.middleCols(h * dh, dh).transpose();
    normalise_scores_backward(pass.S[static_cast<std::size_t>(h)], A, s.dA, layer.rows, s.dS);
    for (Index j = 0; j < m; ++j) {
      const Index r = moved[static_cast<std::size_t>(j)];
      s.dQU.row(j).segment(h * dh, dh).noalias() = c * s.dS.row(r) * KU.middleCols(h * dh, dh);
      s.dKU.row(j).segment(h * dh, dh).noalias() =
          c * s.dS.col(r).transpose() * pass.QU.middleCols(h * dh, dh);
      s.dVU.row(j).segment(h * dh, dh).noalias() =
          A.col(r).transpose() * s.dY.middleCols(h * dh, dh);
    }
  }
  // Back to the moved rows of U, then of X.
  s.dU.noalias() = s.dQU * layer.Q.transpose();
  if (layer.K.size() > 0) {
    s.dU.noalias() += s.dKU * layer.K.transpose();
  } else {
    s.dU += s.dKU;
  }
  if (layer.V.size() > 0) {
    s.dU.noalias() += s.dVU * layer.V.transpose();
  } else {
    s.dU += s.dVU;
  }
  grad.resize(m, d);
  for (Index j = 0; j < m; ++j) {
    const Index r = moved[static_cast<std::size_t>(j)];
    if (layer.pre_norm) {
      grad.row(j) = layer_norm_row_backward(pass.U.row(r), pass.u_scale(r), s.dU.row(j));
    } else {
      grad.row(j) = s.dU.row(j);
    }
    if (layer.residual) grad.row(j) += s.dH1.row(r);
  }
}

}  // namespace wordsens
