// Cost of the random numbers everything else is made of, and the machine's DGEMM rate (the
// yardstick for the Gram and feature phases of gen in docs/PERFORMANCE.md).
#include <benchmark/benchmark.h>

#include <vector>

#include "core/gaussian.hpp"

namespace wordsens {
namespace {

void BM_GaussianFill(benchmark::State& state) {
  const GaussianMatrix V({Philox(1, Stream::weights), 0, 0}, 1.0);
  const Index rows = 64, cols = state.range(0);
  Matrix out(rows, cols);
  Index row0 = 0;
  for (auto _ : state) {
    V.fill(row0, 0, rows, cols, out.data(), cols);
    row0 += rows;
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * rows * cols);  // items = normals
}
// 25 and 100 columns: rf's word blocks V_i at d = 25, 100 (several short rows per batch).
BENCHMARK(BM_GaussianFill)->Arg(25)->Arg(100)->Arg(768)->Arg(4096)->Unit(benchmark::kMicrosecond);

void BM_PhiloxBlock(benchmark::State& state) {
  const Philox rng(1, Stream::weights);
  std::uint32_t i = 0, sink = 0;
  for (auto _ : state) {
    sink ^= rng.block({0, 0, 0, ++i})[0];
    benchmark::DoNotOptimize(sink);
  }
  state.SetItemsProcessed(state.iterations() * 4);  // items = 32-bit words
}
BENCHMARK(BM_PhiloxBlock);

/// The same words, 1024 blocks per call (the SIMD path GaussianMatrix::fill uses).
void BM_PhiloxBlocks(benchmark::State& state) {
  const Philox rng(1, Stream::weights);
  constexpr Index kCount = 1024;
  std::vector<std::uint32_t> w0(kCount), w1(kCount), w2(kCount), w3(kCount);
  std::uint32_t start = 0;
  for (auto _ : state) {
    rng.blocks({0, 0, 0, start}, kCount, w0.data(), w1.data(), w2.data(), w3.data());
    start += kCount;
    benchmark::DoNotOptimize(w0.data());
  }
  state.SetItemsProcessed(state.iterations() * 4 * kCount);  // items = 32-bit words
}
BENCHMARK(BM_PhiloxBlocks);

/// C = A·Bᵀ with Eigen, the product shape of the Gram phase (N × D times D × block).
void BM_Dgemm(benchmark::State& state) {
  const Index n = state.range(0);
  const GaussianMatrix G({Philox(2, Stream::weights), 0, 0}, 1.0);
  const Matrix A = G.window(0, 0, n, n), B = G.window(n, 0, n, n);
  Matrix C(n, n);
  for (auto _ : state) {
    C.noalias() = A * B.transpose();
    benchmark::DoNotOptimize(C.data());
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * n * n * n * state.iterations(), benchmark::Counter::kIsRate,
                         benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Dgemm)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wordsens
