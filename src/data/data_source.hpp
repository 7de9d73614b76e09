#pragma once
// Where a task's texts come from (docs/METHOD.md §1). A source is a pure function of
// (n, d, trial, …): every model and every rank sees the same texts. The sources live in this
// folder (synthetic here, embeddings in data/embeddings_data_source.hpp); the `data` key picks
// one in cli/config_data_source.cpp, which also opens the files a source reads (through the io
// layer).
#include <cstdint>

#include "core/types.hpp"
#include "data/gen_problem.hpp"

namespace wordsens {

/// What a task reads from its trial's texts: the first `texts` of them (1 for ws, the test
/// text; N + 1 for gen, test and training texts), each in a window of n tokens and d coordinates.
struct TextUse {
  Index n = 0, d = 0;
  Index texts = 1;
  std::uint32_t trial = 0;
};

class DataSource {
 public:
  virtual ~DataSource() = default;
  /// The test text X of a trial (n × d, rows of norm √d).
  [[nodiscard]] virtual Matrix test_sample(Index n, Index d, std::uint32_t trial) const = 0;
  /// The trial's generalization problem: N training texts with labels and the test text.
  [[nodiscard]] virtual GenProblem gen_problem(Index n, Index d, Index N,
                                               std::uint32_t trial) const = 0;
};

/// Rows iid N(0, I_d), rescaled (data/synthetic.hpp); labels sign(⟨vec(X), w⟩).
class SyntheticSource final : public DataSource {
 public:
  explicit SyntheticSource(std::uint32_t master_seed) : seed_(master_seed) {}
  [[nodiscard]] Matrix test_sample(Index n, Index d, std::uint32_t trial) const override;
  [[nodiscard]] GenProblem gen_problem(Index n, Index d, Index N,
                                       std::uint32_t trial) const override;

 private:
  std::uint32_t seed_;
};

}  // namespace wordsens
