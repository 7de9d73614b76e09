#include "data/normalise.hpp"

#include <cmath>
#include <string>

#include "core/errors.hpp"

namespace wordsens {

Matrix normalise_rows(Matrix X) {
  const double target = std::sqrt(static_cast<double>(X.cols()));
  for (Index i = 0; i < X.rows(); ++i) {
    const double norm = X.row(i).norm();
    if (!(norm > 0.0) || !std::isfinite(norm)) {
      throw InputError("cannot rescale token " + std::to_string(i) +
                       " to norm sqrt(d): its embedding is zero or not finite");
    }
    X.row(i) *= target / norm;
  }
  return X;
}

}  // namespace wordsens
