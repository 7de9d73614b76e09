#pragma once
// The one registry of random stream ids (docs/METHOD.md §9). A Philox key is (master seed, stream
// id): two consumers with different streams never share a random number, whatever their counters.
// Never renumber an existing entry: results files written with older builds must stay
// reproducible. Append new streams at the end.
#include <cstdint>

namespace wordsens {

enum class Stream : std::uint32_t {
  weights = 1,          // model weights V, V_l, W; counter entity = task id, matrix = layer
  samples = 2,          // synthetic texts X; entity = trial, matrix = sample index
  label_direction = 3,  // the unit vector w of synthetic labels; entity = trial
  ascent_starts = 4,    // optimiser starting points; entity = task id, matrix = position
  positions = 5,        // random subsets of word positions; entity = task id
  data_selection = 6,   // which sequences of an embeddings file a trial uses; entity = trial
};

}  // namespace wordsens
