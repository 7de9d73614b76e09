#pragma once
// Synthetic texts (docs/METHOD.md §1): rows iid N(0, I_d), then rescaled to norm √d.
//
// A sample depends only on (master seed, n, d, trial, sample index): never on the model or k,
// so every model sees the same texts (common random numbers, docs/METHOD.md §9). Sample (n, d) is
// the top-left n × d window of one unbounded Gaussian matrix per (trial, sample index) before
// rescaling, so the texts of different grid points are nested prefixes of each other.
#include <cstdint>

#include "core/types.hpp"
#include "data/gen_problem.hpp"

namespace wordsens {

/// Sample index 0 is the trial's test text (WS and gen); 1..N are gen's training texts.
[[nodiscard]] Matrix synthetic_sample(std::uint32_t master_seed, Index n, Index d,
                                      std::uint32_t trial, std::uint32_t sample_index);

/// The fixed random unit vector w ∈ R^{n·d} of a trial's synthetic labels y = sign(⟨vec(X), w⟩).
[[nodiscard]] Vector synthetic_label_direction(std::uint32_t master_seed, Index n, Index d,
                                               std::uint32_t trial);

/// sign(⟨vec(X), w⟩) as ±1 (a zero inner product, probability 0, is labelled +1).
[[nodiscard]] double synthetic_label(const Matrix& X, const Vector& w);

/// The synthetic gen problem of a trial: test text = sample 0, training texts = samples 1..N,
/// labels sign(⟨vec(X), w⟩) with the trial's w.
[[nodiscard]] GenProblem synthetic_gen_problem(std::uint32_t master_seed, Index n, Index d, Index N,
                                               std::uint32_t trial);

}  // namespace wordsens
