#pragma once
// The row normalisations of attention scores (docs/METHOD.md §2), shared by the attention models
// and the transformer family: softmax, and the row-normalised ReLU A_jl = ReLU(s_jl)/Σ_m
// ReLU(s_jm), an all-zero row giving zero. A score of −∞ (a masked entry) gets weight 0 under
// both.
#include "core/types.hpp"

namespace wordsens {

enum class AttentionKind { softmax, relu };

/// Row-wise normalisation of scores S (n × n). Softmax is shifted by the row maximum, so scores
/// of any finite size give finite results.
[[nodiscard]] Matrix normalise_scores(const Matrix& S, AttentionKind kind);

/// ∂S from ∂A through A = normalise_scores(S, kind): softmax ∂S_rl = A_rl (∂A_rl − Σ_q A_rq
/// ∂A_rq); ReLU rows ∂S_rl = [S_rl > 0] (∂A_rl − Σ_q A_rq ∂A_rq) / Σ_q ReLU(S_rq), nothing for
/// an all-zero row. Writes dS (resized).
void normalise_scores_backward(const Matrix& S, const Matrix& A, const Matrix& dA,
                               AttentionKind kind, Matrix& dS);

}  // namespace wordsens
