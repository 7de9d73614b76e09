#include "data/synthetic.hpp"

#include "core/gaussian.hpp"
#include "data/normalise.hpp"

namespace wordsens {

Matrix synthetic_sample(std::uint32_t master_seed, Index n, Index d, std::uint32_t trial,
                        std::uint32_t sample_index) {
  const GaussianMatrix source({Philox(master_seed, Stream::samples), trial, sample_index}, 1.0);
  return normalise_rows(source.window(0, 0, n, d));
}

Vector synthetic_label_direction(std::uint32_t master_seed, Index n, Index d, std::uint32_t trial) {
  const GaussianMatrix source({Philox(master_seed, Stream::label_direction), trial, 0}, 1.0);
  const Matrix w = source.window(0, 0, n, d);  // same word-major layout as vec(X)
  return vec(w) / w.norm();
}

double synthetic_label(const Matrix& X, const Vector& w) {
  return vec(X).dot(w) >= 0.0 ? 1.0 : -1.0;
}

}  // namespace wordsens
