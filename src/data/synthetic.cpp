#include "data/synthetic.hpp"

#include <stdexcept>

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

GenProblem synthetic_gen_problem(std::uint32_t master_seed, Index n, Index d, Index N,
                                 std::uint32_t trial) {
  if (N < 1) throw std::invalid_argument("the training set size N must be at least 1");
  GenProblem problem;
  const Vector w = synthetic_label_direction(master_seed, n, d, trial);
  problem.test = synthetic_sample(master_seed, n, d, trial, 0);
  problem.test_label = synthetic_label(problem.test, w);
  problem.train.reserve(static_cast<std::size_t>(N));
  problem.train_labels.resize(N);
  for (Index m = 0; m < N; ++m) {
    problem.train.push_back(
        synthetic_sample(master_seed, n, d, trial, static_cast<std::uint32_t>(m + 1)));
    problem.train_labels(m) = synthetic_label(problem.train.back(), w);
  }
  return problem;
}

}  // namespace wordsens
