#pragma once
// Where a task's texts come from (docs/METHOD.md §1): the one switch between data sources. A source
// is a pure function of (n, d, trial, …): every model and every rank sees the same texts.
// `synthetic` lives here; sources that read files (e.g. `embeddings:<path>`) are built by the
// command line (cli/config_data_source.cpp), which may use the io layer.
#include <cstdint>
#include <memory>
#include <string>

#include "core/types.hpp"
#include "estimators/trained_head.hpp"

namespace wordsens {

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
