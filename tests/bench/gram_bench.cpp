// Gram and feature phases of gen (docs/PERFORMANCE.md), reported as GFLOPS next to BM_Dgemm, the
// DGEMM rate of the same binary. Flop counts are those of the products each phase performs:
//  * rf, full sampler: A_b = X_all V_bᵀ (2·M·D·k over all blocks) and K += ϕ(A_b)ϕ(A_b)ᵀ (M²·k,
//    symmetric rank update); the k·D normals of V are not counted (they are part of the cost);
//  * rf, marginal sampler (P = {0}): R_b = F Z_b (M²·k, triangular), A_b += X_P V_P,bᵀ
//    (2·M·d·k) and the same rank update (M²·k); the k·M normals of Z are not counted;
//  * raf: the feature phase φ(X_m) = softmax(X W Xᵀ/√d) X per sample (2·n·d² + 4·n²·d) and
//    the Gram phase ΦΦᵀ (M²·p, p = n·d, symmetric rank update), timed separately.
#include <benchmark/benchmark.h>

#include <vector>

#include "data/synthetic.hpp"
#include "models/rf/rf.hpp"
#include "models/rf/rf_marginal.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {
namespace {

std::vector<Matrix> gram_samples(Index M, Index n, Index d) {
  std::vector<Matrix> samples;
  samples.reserve(static_cast<std::size_t>(M));
  for (Index m = 0; m < M; ++m) {
    samples.push_back(synthetic_sample(1, n, d, 0, static_cast<std::uint32_t>(m)));
  }
  return samples;
}

void set_rate(benchmark::State& state, double flops_per_iteration) {
  state.counters["GFLOPS"] =
      benchmark::Counter(flops_per_iteration * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  state.counters["M"] = static_cast<double>(state.range(0));
  state.counters["n"] = static_cast<double>(state.range(1));
  state.counters["d"] = static_cast<double>(state.range(2));
}

/// Args: M samples, n, d; k = D = n·d.
void BM_RfGramFull(benchmark::State& state) {
  const Index M = state.range(0), n = state.range(1), d = state.range(2), k = n * d;
  const RandomFeatures model({ModelKind::rf, n, d, k, 1, Activation::relu}, {1, 0});
  const auto samples = gram_samples(M, n, d);
  for (auto _ : state) benchmark::DoNotOptimize(model.gram(samples).data());
  const double Md = static_cast<double>(M), Dd = static_cast<double>(n * d);
  set_rate(state, 2.0 * Md * Dd * static_cast<double>(k) + Md * Md * static_cast<double>(k));
}
BENCHMARK(BM_RfGramFull)->Args({1101, 40, 64})->Unit(benchmark::kMillisecond);

void BM_RfGramMarginal(benchmark::State& state) {
  const Index M = state.range(0), n = state.range(1), d = state.range(2), k = n * d;
  ModelSpec spec{ModelKind::rf, n, d, k, 1, Activation::relu};
  spec.sampling = RfSampling::marginal;
  const auto samples = gram_samples(M, n, d);
  std::vector<const Matrix*> pointers;
  for (const Matrix& X : samples) pointers.push_back(&X);
  const std::vector<Index> P{0};
  const MarginalRandomFeatures model(spec, {1, 0}, P, pointers);
  for (auto _ : state) benchmark::DoNotOptimize(model.gram(samples).data());
  const double Md = static_cast<double>(M), kd = static_cast<double>(k);
  set_rate(state, 2.0 * Md * Md * kd + 2.0 * Md * static_cast<double>(d) * kd);
}
BENCHMARK(BM_RfGramMarginal)
    ->Args({1101, 40, 64})
    ->Args({1101, 40, 768})
    ->Unit(benchmark::kMillisecond);

void BM_RafFeaturePhase(benchmark::State& state) {
  const Index M = state.range(0), n = state.range(1), d = state.range(2);
  const auto model = make_feature_map({ModelKind::raf, n, d, 0, 1, Activation::relu}, {1, 0});
  const auto samples = gram_samples(M, n, d);
  for (auto _ : state) benchmark::DoNotOptimize(model->feature_matrix(samples).data());
  const double nd = static_cast<double>(n), dd = static_cast<double>(d);
  set_rate(state, static_cast<double>(M) * (2.0 * nd * dd * dd + 4.0 * nd * nd * dd));
}
BENCHMARK(BM_RafFeaturePhase)
    ->Args({1101, 40, 64})
    ->Args({301, 40, 768})
    ->Unit(benchmark::kMillisecond);

void BM_RafGramPhase(benchmark::State& state) {
  const Index M = state.range(0), n = state.range(1), d = state.range(2);
  const auto model = make_feature_map({ModelKind::raf, n, d, 0, 1, Activation::relu}, {1, 0});
  const Matrix phi = model->feature_matrix(gram_samples(M, n, d));
  for (auto _ : state) {
    Matrix K = Matrix::Zero(M, M);
    K.selfadjointView<Eigen::Lower>().rankUpdate(phi);
    benchmark::DoNotOptimize(K.data());
  }
  const double Md = static_cast<double>(M);
  set_rate(state, Md * Md * static_cast<double>(n * d));
}
BENCHMARK(BM_RafGramPhase)
    ->Args({1101, 40, 64})
    ->Args({301, 40, 768})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wordsens
