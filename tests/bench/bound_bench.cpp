// Certified sensitivity bounds (S_upper): rf's single-precision route
// (models/bounds/float_gram.hpp) and its column-block pass, against the double Gram + eigensolver
// route of every word's spectrum (what rf computed for every word before); drf's layer-by-layer
// bound. Counters: GFLOPS of the Gram matrices (rows·cols² per word, the symmetric rank-update
// count), the generation of the normals included in the time.
#include <benchmark/benchmark.h>

#include "core/gaussian.hpp"
#include "data/synthetic.hpp"
#include "models/bounds/block_norm.hpp"
#include "models/bounds/float_gram.hpp"
#include "models/drf/drf.hpp"
#include "models/rf/rf.hpp"

namespace wordsens {
namespace {

void set_counters(benchmark::State& state, Index n, Index d, Index k) {
  const double flops = static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(d) *
                       static_cast<double>(d);
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  state.counters["n"] = static_cast<double>(n);
  state.counters["d"] = static_cast<double>(d);
}

/// Args: n, d; k = D. A fresh model per iteration (the bounds are cached per model).
void BM_RfSensitivityBound(benchmark::State& state) {
  const Index n = state.range(0), d = state.range(1), k = n * d;
  const Matrix X = synthetic_sample(1, n, d, 0, 0);
  for (auto _ : state) {
    const RandomFeatures model({ModelKind::rf, n, d, k, 1, Activation::relu}, {1, 0});
    benchmark::DoNotOptimize(model.sensitivity_upper_bound(X)->value);
  }
  set_counters(state, n, d, k);
}
BENCHMARK(BM_RfSensitivityBound)->Args({60, 256})->Unit(benchmark::kMillisecond);

/// The same pass serving the plain features of two samples (recompute_plain).
void BM_RfRecomputePlainWithBound(benchmark::State& state) {
  const Index n = state.range(0), d = state.range(1), k = n * d;
  const Matrix X = synthetic_sample(1, n, d, 0, 0);
  Matrix moved = X;
  moved.row(0) *= -1.0;
  const std::vector<Matrix> samples{X, moved};
  for (auto _ : state) {
    const RandomFeatures model({ModelKind::rf, n, d, k, 1, Activation::relu}, {1, 0});
    benchmark::DoNotOptimize(model.recompute_plain(samples, true).bound->value);
  }
  set_counters(state, n, d, k);
}
BENCHMARK(BM_RfRecomputePlainWithBound)->Args({60, 256})->Unit(benchmark::kMillisecond);

/// Every word's double spectrum (Gram matrix, eigen-decomposition, certificate).
void BM_RfDoubleSpectra(benchmark::State& state) {
  const Index n = state.range(0), d = state.range(1), k = n * d;
  const RandomFeatures model({ModelKind::rf, n, d, k, 1, Activation::relu}, {1, 0});
  for (auto _ : state) {
    double worst = 0.0;
    for (Index i = 0; i < n; ++i) {
      worst = std::max(worst, column_block_spectrum(model.weights(), k, i * d, d).norm_upper);
    }
    benchmark::DoNotOptimize(worst);
  }
  set_counters(state, n, d, k);
}
BENCHMARK(BM_RfDoubleSpectra)->Args({60, 256})->Unit(benchmark::kMillisecond);

/// The float Gram kernel alone: rows × cols Gaussian rows added (rounding to float and packing
/// included, generation not), one bound. Arg 2: 0 the fastest kernel (AVX-512 where the CPU has
/// it), 1 the portable one (the build's SIMD). GFLOPS at the symmetric count rows·cols²; compare
/// with BM_Dgemm's rate (2n³ flops, double) of the same build.
void BM_FloatGramKernel(benchmark::State& state) {
  const Index rows = state.range(0), cols = state.range(1);
  const GramKernel kernel = state.range(2) == 0 ? GramKernel::fastest : GramKernel::portable;
  const Matrix B = GaussianMatrix({Philox(3, Stream::weights), 0, 0}, 1.0).window(0, 0, rows, cols);
  FloatGram gram(cols, kernel);
  for (auto _ : state) {
    gram.reset();
    gram.add_rows(B.data(), rows, cols);
    benchmark::DoNotOptimize(gram.gram_error_factor());
    benchmark::DoNotOptimize(gram.gram().data());
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(static_cast<double>(rows) * static_cast<double>(cols) *
                             static_cast<double>(cols) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  state.counters["wide"] = gram.uses_wide_kernel() ? 1.0 : 0.0;
}
BENCHMARK(BM_FloatGramKernel)
    ->Args({16384, 768, 0})
    ->Args({16384, 768, 1})
    ->Unit(benchmark::kMillisecond);

/// Args: n, d, L; k = D (the drf grid's largest point is n = 20, d = 192, L up to 8).
void BM_DrfSensitivityBound(benchmark::State& state) {
  const Index n = state.range(0), d = state.range(1), k = n * d;
  const int L = static_cast<int>(state.range(2));
  const Matrix X = synthetic_sample(1, n, d, 0, 0);
  for (auto _ : state) {
    state.PauseTiming();
    const DeepRandomFeatures model({ModelKind::drf, n, d, k, L, Activation::relu}, {1, 0});
    state.ResumeTiming();
    benchmark::DoNotOptimize(model.sensitivity_upper_bound(X)->value);
  }
  state.counters["k"] = static_cast<double>(k);
  state.counters["L"] = static_cast<double>(L);
}
BENCHMARK(BM_DrfSensitivityBound)->Args({20, 192, 2})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wordsens
