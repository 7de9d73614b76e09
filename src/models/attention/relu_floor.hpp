#pragma once
// A floor under the word sensitivity of row-normalised ReLU attention (docs/METHOD.md, "A floor
// for ReLU attention"). The scores of row i against the other words are linear in the new word:
// s_il = x_i'ᵀ (W x_l) / √d. While n − 1 < d, the n − 1 sign constraints "only the score against
// word l* is positive" have solutions, and moving word i to one of them inside the ball makes row
// i of the attention all l* (or l* and the new word itself): row i's output jumps from its spread
// average to x_{l*}, a change of the order of a whole word, at every such n. A search started
// there never ends below it, so S_relu cannot fall under this floor for lack of a good start.
#include <vector>

#include "core/types.hpp"

namespace wordsens {

/// How many words l* per position get a floor start (the words farthest from row i's output).
inline constexpr int kReluFloorCandidates = 2;

/// The Gram matrix K Kᵀ of the keys K = X Wᵀ (row l is (W x_l)ᵀ), shared by every position of a
/// sample: each position's constraints use it without its own row and column.
[[nodiscard]] Matrix relu_floor_gram(const Matrix& XWt);

/// Moves Δ of word `position` (‖Δ‖ ≤ √d) after which exactly one of the other words keeps a
/// positive score in row `position`: one per chosen l* (up to `candidates`, the words farthest
/// from the row's current output), each the largest move along the least-norm solution of the
/// sign constraints, so that the scores' margins are as wide as the ball allows. Empty when
/// n − 1 ≥ d (the constraints have no solution in general) or the keys are dependent.
/// XWt = X Wᵀ, gram = relu_floor_gram(XWt), scores = X W Xᵀ (not yet divided by √d).
[[nodiscard]] std::vector<Vector> relu_floor_starts(const Matrix& X, const Matrix& XWt,
                                                    const Matrix& gram, const Matrix& scores,
                                                    Index position, int candidates);

}  // namespace wordsens
