#include "data/data_source.hpp"

#include "data/synthetic.hpp"

namespace wordsens {

Matrix SyntheticSource::test_sample(Index n, Index d, std::uint32_t trial) const {
  return synthetic_sample(seed_, n, d, trial, 0);
}

GenProblem SyntheticSource::gen_problem(Index n, Index d, Index N, std::uint32_t trial) const {
  return synthetic_gen_problem(seed_, n, d, N, trial);
}

}  // namespace wordsens
