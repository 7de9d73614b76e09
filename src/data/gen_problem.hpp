#pragma once
// What the gen experiment learns from and is tested on (docs/METHOD.md §7): every data source
// (data/data_source.hpp) hands a trial's problem over in this form.
#include <vector>

#include "core/types.hpp"

namespace wordsens {

/// A training set and a new sample (X, y) outside it.
struct GenProblem {
  std::vector<Matrix> train;  // X_1 … X_N
  Vector train_labels;        // y_m = ±1
  Matrix test;                // X
  double test_label = 1.0;    // y
};

}  // namespace wordsens
