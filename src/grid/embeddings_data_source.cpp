#include "grid/embeddings_data_source.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

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
                                 const std::vector<TaskSpec>& tasks) {
  // Shuffles are nested in the count, so per (n, trial) the largest count covers the others.
  std::map<std::pair<Index, std::uint32_t>, Index> count;
  std::set<std::tuple<Index, Index, Index>> checked;  // (n, d, count) grid points
  EmbeddingsNeeds needs;
  for (const TaskSpec& task : tasks) {
    const Index texts = task.experiment == Experiment::gen ? task.N + 1 : 1;
    if (checked.insert({task.n, task.d, texts}).second) {
      check_embeddings_support(source, task.n, task.d, texts);
    }
    Index& c = count[{task.n, task.trial}];
    c = std::max(c, texts);
    needs.n = std::max(needs.n, task.n);
    needs.d = std::max(needs.d, task.d);
  }
  std::set<Index> used;
  for (const auto& [key, texts] : count) {
    for (const Index s : select_sequences(source, master_seed, key.second, key.first, texts)) {
      used.insert(s);
    }
  }
  needs.sequences.assign(used.begin(), used.end());
  return needs;
}

}  // namespace wordsens
