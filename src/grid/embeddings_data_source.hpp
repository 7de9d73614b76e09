#pragma once
// The `embeddings:<path>` data source of the driver (SPEC §1, §6): texts and labels from an
// EmbeddingsSource (data/embeddings_source.hpp). The test text of a trial is sample 0 of the
// trial's shuffle, gen's training texts samples 1..N, so they are disjoint; labels come from
// the source. The command line opens the file (io/embeddings_file.hpp), checks the grid with
// embeddings_needs() and hands over an in-memory table of just the sequences the tasks use.
#include <cstdint>
#include <memory>
#include <vector>

#include "data/embeddings_source.hpp"
#include "grid/data_source.hpp"
#include "grid/task.hpp"

namespace wordsens {

class EmbeddingsDataSource final : public DataSource {
 public:
  EmbeddingsDataSource(std::shared_ptr<const EmbeddingsSource> source, std::uint32_t master_seed)
      : source_(std::move(source)), seed_(master_seed) {}
  [[nodiscard]] Matrix test_sample(Index n, Index d, std::uint32_t trial) const override;
  [[nodiscard]] GenProblem gen_problem(Index n, Index d, Index N,
                                       std::uint32_t trial) const override;

 private:
  std::shared_ptr<const EmbeddingsSource> source_;
  std::uint32_t seed_;
};

/// What a task list needs from a source: the sequences any task uses (sorted) and the largest
/// n and d. Throws std::invalid_argument (one line, from check_embeddings_support) when a grid
/// point asks for d > width, n > max_len, or more texts than there are sequences of n tokens.
struct EmbeddingsNeeds {
  std::vector<Index> sequences;
  Index n = 0, d = 0;
};
[[nodiscard]] EmbeddingsNeeds embeddings_needs(const EmbeddingsSource& source,
                                               std::uint32_t master_seed,
                                               const std::vector<TaskSpec>& tasks);

}  // namespace wordsens
