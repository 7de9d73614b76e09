#pragma once
// The `embeddings:<path>` data source of the driver: texts and labels from an
// EmbeddingsSource (data/embeddings_source.hpp). The test text of a trial is sample 0 of the
// trial's shuffle, gen's training texts samples 1..N, so they are disjoint; labels come from
// the source. The command line opens the file (io/inputs/embeddings_file.hpp), checks the grid with
// embeddings_needs() and hands over an in-memory table of just the sequences the tasks use.
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "data/data_source.hpp"
#include "data/embeddings_source.hpp"

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

/// What a study's tasks need from a source (one TextUse per task): the sequences any task uses
/// (sorted) and the largest n and d. Throws InputError (one line, from
/// check_embeddings_support) when a grid point asks for d > width, n > max_len, or more texts than
/// there are sequences of n tokens.
struct EmbeddingsNeeds {
  std::vector<Index> sequences;
  Index n = 0, d = 0;
  /// Per sequence used: the (n, d) windows tasks take from it (its first n tokens, first d
  /// coordinates).
  std::map<Index, std::set<std::pair<Index, Index>>> windows;
};
[[nodiscard]] EmbeddingsNeeds embeddings_needs(const EmbeddingsSource& source,
                                               std::uint32_t master_seed,
                                               const std::vector<TextUse>& uses);

/// Throws InputError (one line) when a window some task uses holds a token with a
/// NaN or infinite coordinate, or a token that is zero in its first d coordinates (it cannot be
/// rescaled to norm √d): the checks embeddings_sample() makes, done for every task before the
/// run starts. Reads each used sequence once (its largest window).
void check_token_values(const EmbeddingsSource& source, const EmbeddingsNeeds& needs);

}  // namespace wordsens
