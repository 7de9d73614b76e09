#pragma once
#include "core/types.hpp"

namespace wordsens {

/// Rescales every row to Euclidean norm √d (the paper's normalisation, docs/METHOD.md §1).
/// A zero row cannot be rescaled: throws InputError naming the row.
[[nodiscard]] Matrix normalise_rows(Matrix X);

}  // namespace wordsens
