// The attention word-set objective (f and ∇f of m moved words, B points per call, as the
// multi-word search calls it), incremental against the from-scratch reference:
//   build/bench/tests/bench/bench_wordsens --benchmark_filter='RafWordSet'
// Args: n, d, m, B. The words are spread over the text (first, last and between).
#include <benchmark/benchmark.h>

#include <vector>

#include "core/gaussian.hpp"
#include "data/synthetic.hpp"
#include "models/attention/attention.hpp"
#include "models/attention/attention_word_set.hpp"

namespace wordsens {
namespace {

std::vector<Index> spread_positions(Index n, Index m) {
  std::vector<Index> positions;
  for (Index j = 0; j < m; ++j) positions.push_back(m == 1 ? 0 : j * (n - 1) / (m - 1));
  return positions;
}

void word_set_loop(benchmark::State& state, bool incremental) {
  const Index n = state.range(0), d = state.range(1), m = state.range(2), B = state.range(3);
  const AttentionFeatures model({.kind = ModelKind::raf, .n = n, .d = d}, {1, 0},
                                AttentionKind::softmax);
  const Matrix X = synthetic_sample(1, n, d, 0, 0);
  const std::vector<Index> positions = spread_positions(n, m);
  const auto evaluator =
      incremental ? model.at_word_set(X, positions)
                  : make_attention_word_set_from_scratch(X, model.W(), model.kind(), positions);
  const GaussianMatrix rows({Philox(1, Stream::ascent_starts), 0, 0}, 1.0);
  Matrix deltas(m * d, B);
  for (Index b = 0; b < B; ++b) deltas.col(b) = rows.row_segment(b, 0, m * d);
  Vector values;
  Matrix grads;
  for (auto _ : state) {
    evaluator->sensitivity_objective(deltas, values, &grads);
    benchmark::DoNotOptimize(values.data());
    benchmark::DoNotOptimize(grads.data());
  }
  state.counters["us_per_point"] =
      benchmark::Counter(static_cast<double>(state.iterations() * B) * 1e-6,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_RafWordSetIncremental(benchmark::State& state) { word_set_loop(state, true); }
void BM_RafWordSetFromScratch(benchmark::State& state) { word_set_loop(state, false); }

// The paper's largest attention point with 4 moved words and a round of 8 points.
BENCHMARK(BM_RafWordSetIncremental)->Args({250, 768, 4, 8})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RafWordSetFromScratch)->Args({250, 768, 4, 8})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wordsens
