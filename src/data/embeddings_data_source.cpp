#include "data/embeddings_data_source.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "core/errors.hpp"

namespace wordsens {

Matrix EmbeddingsDataSource::test_sample(Index n, Index d, std::uint32_t trial) const {
  return embeddings_trial_sample(*source_, seed_, n, d, trial, 0);
}

GenProblem EmbeddingsDataSource::gen_problem(Index n, Index d, Index N, std::uint32_t trial) const {
  const auto chosen = select_sequences(*source_, seed_, trial, n, N + 1);
  GenProblem problem;
  problem.test = embeddings_sample(*source_, chosen[0], n, d);
  problem.test_label = source_->label(chosen[0]);
  problem.train_labels.resize(N);
  for (Index m = 0; m < N; ++m) {
    const Index s = chosen[static_cast<std::size_t>(m + 1)];
    problem.train.push_back(embeddings_sample(*source_, s, n, d));
    problem.train_labels(m) = source_->label(s);
  }
  return problem;
}

EmbeddingsNeeds embeddings_needs(const EmbeddingsSource& source, std::uint32_t master_seed,
                                 const std::vector<TextUse>& uses) {
  // Shuffles are nested in the count, so per (n, trial) the largest count covers the others;
  // every d used at that (n, trial) takes its window from those sequences.
  struct Use {
    Index texts = 0;
    std::set<Index> d;
  };
  std::map<std::pair<Index, std::uint32_t>, Use> merged;
  std::set<std::tuple<Index, Index, Index>> checked;  // (n, d, count) grid points
  EmbeddingsNeeds needs;
  for (const TextUse& u : uses) {
    if (checked.insert({u.n, u.d, u.texts}).second) {
      check_embeddings_support(source, u.n, u.d, u.texts);
    }
    Use& use = merged[{u.n, u.trial}];
    use.texts = std::max(use.texts, u.texts);
    use.d.insert(u.d);
    needs.n = std::max(needs.n, u.n);
    needs.d = std::max(needs.d, u.d);
  }
  for (const auto& [key, use] : merged) {
    for (const Index s : select_sequences(source, master_seed, key.second, key.first, use.texts)) {
      for (const Index d : use.d) needs.windows[s].insert({key.first, d});
    }
  }
  for (const auto& [s, windows] : needs.windows) needs.sequences.push_back(s);
  return needs;
}

void check_token_values(const EmbeddingsSource& source, const EmbeddingsNeeds& needs) {
  for (const auto& [sequence, windows] : needs.windows) {
    Index n = 0, d = 0;
    for (const auto& [wn, wd] : windows) {
      n = std::max(n, wn);
      d = std::max(d, wd);
    }
    const Matrix X = source.raw_tokens(sequence, n, d);
    // Per token: how many leading coordinates are finite, and where its first non-zero one is.
    std::vector<Index> finite(static_cast<std::size_t>(n), d),
        nonzero(static_cast<std::size_t>(n), d);
    for (Index t = 0; t < n; ++t) {
      for (Index c = d - 1; c >= 0; --c) {
        if (!std::isfinite(X(t, c))) finite[static_cast<std::size_t>(t)] = c;
        if (X(t, c) != 0.0) nonzero[static_cast<std::size_t>(t)] = c;
      }
    }
    for (const auto& [wn, wd] : windows) {
      for (Index t = 0; t < wn; ++t) {
        const std::string where = "embeddings file " + source.name() + ": token " +
                                  std::to_string(t) + " of sequence " + std::to_string(sequence);
        const std::string used =
            " (used with n = " + std::to_string(wn) + ", d = " + std::to_string(wd) + ")";
        if (finite[static_cast<std::size_t>(t)] < wd) {
          throw InputError(where + " has a NaN or infinite coordinate" + used);
        }
        if (nonzero[static_cast<std::size_t>(t)] >= wd) {
          throw InputError(where + " is zero in its first " + std::to_string(wd) +
                           " coordinates and cannot be rescaled to norm sqrt(d)" + used);
        }
      }
    }
  }
}

}  // namespace wordsens
