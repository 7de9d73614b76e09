// The batched word-sensitivity objective (f and ∇f for B points per call, docs/PERFORMANCE.md), as
// time per point, GFLOPS and the fraction of this binary's DGEMM rate it reaches:
//   build/bench/tests/bench/bench_wordsens --benchmark_filter='Batched'
// Flops per point (multiply–adds × 2): raf 2·(8n·d + d²) (forward 4n·d + d², gradient 4n·d,
// attention_batch.hpp); rf 2·(2k·d) (V_i Δ and V_iᵀ G). `pct_of_dgemm` is the GFLOPS over the
// rate of a 768 × 768 × 768 DGEMM measured once in the same process, so "within 1.5× of the
// DGEMM bound" reads pct_of_dgemm ≥ 67. `bound_us` is the time per point of the single-point
// evaluator's arithmetic (8n·d + 3d² multiply–adds) at that rate, the bound the batch is judged
// against; `us_per_point` / `bound_us` is the ratio to it.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "core/gaussian.hpp"
#include "data/synthetic.hpp"
#include "models/shared/feature_map.hpp"
#include "models/transformer/transformer.hpp"

namespace wordsens {
namespace {

/// GFLOPS of C = A Bᵀ at 768³ in this binary: the best run of those in half a second, after a
/// quarter of a second of the same product. The rate is the share's denominator, so it is the
/// highest this core reaches: five runs straight after start-up, as before, came out anywhere
/// between 33 and 53 GFLOPS on a shared host, and a low one inflated every share.
double dgemm_gflops() {
  static const double rate = [] {
    const Index n = 768;
    const GaussianMatrix G({Philox(2, Stream::weights), 0, 0}, 1.0);
    const Matrix A = G.window(0, 0, n, n), B = G.window(n, 0, n, n);
    Matrix C(n, n);
    double best = 0.0;
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    while (elapsed() < 0.25) {
      C.noalias() = A * B.transpose();
      benchmark::DoNotOptimize(C.data());
    }
    for (int run = 0; run < 5 || elapsed() < 0.75; ++run) {
      const auto t0 = std::chrono::steady_clock::now();
      C.noalias() = A * B.transpose();
      benchmark::DoNotOptimize(C.data());
      const std::chrono::duration<double> s = std::chrono::steady_clock::now() - t0;
      best = std::max(best, 2.0 * static_cast<double>(n * n * n) / s.count() * 1e-9);
    }
    return best;
  }();
  return rate;
}

/// B points per call at a middle position; Args: n, d, B (and k for rf, 0: k = n·d).
void batched_loop(benchmark::State& state, const ModelSpec& spec, double flops_per_point,
                  double bound_flops_per_point = 0.0) {
  const Index B = state.range(2);
  const auto model = make_feature_map(spec, {1, 0});
  const Matrix X = synthetic_sample(1, spec.n, spec.d, 0, 0);
  auto evaluator = model->at_position(X, spec.n / 2);
  const GaussianMatrix rows({Philox(1, Stream::ascent_starts), 0, 0}, 1.0);
  Matrix deltas(spec.d, B);
  for (Index b = 0; b < B; ++b) deltas.col(b) = rows.row_segment(b, 0, spec.d);
  Vector values;
  Matrix grads;
  const double rate = dgemm_gflops();
  for (auto _ : state) {
    evaluator->sensitivity_objective(deltas, values, &grads);
    benchmark::DoNotOptimize(values.data());
    benchmark::DoNotOptimize(grads.data());
  }
  const double points = static_cast<double>(state.iterations() * B);
  state.counters["us_per_point"] =
      benchmark::Counter(points * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["pct_of_dgemm"] =
      benchmark::Counter(flops_per_point * points * 1e-7 / rate, benchmark::Counter::kIsRate);
  if (bound_flops_per_point > 0.0) state.counters["bound_us"] = bound_flops_per_point / rate * 1e-3;
  state.counters["GFLOPS"] = benchmark::Counter(
      flops_per_point * points, benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  state.counters["dgemm_GFLOPS"] = rate;
  state.counters["B"] = static_cast<double>(B);
}

void BM_RafBatchedObjective(benchmark::State& state) {
  const ModelSpec spec{.kind = ModelKind::raf, .n = state.range(0), .d = state.range(1)};
  const double n = static_cast<double>(spec.n), d = static_cast<double>(spec.d);
  batched_loop(state, spec, 2.0 * (8.0 * n * d + d * d), 2.0 * (8.0 * n * d + 3.0 * d * d));
}
// The paper's largest attention point at growing batch width (B = 1: no batching).
BENCHMARK(BM_RafBatchedObjective)
    ->Args({250, 768, 1})
    ->Args({250, 768, 4})
    ->Args({250, 768, 8})
    ->Args({250, 768, 16})
    ->Args({250, 768, 35})
    ->Args({250, 768, 64})
    ->Unit(benchmark::kMillisecond);

void BM_RafReluBatchedObjective(benchmark::State& state) {
  const ModelSpec spec{.kind = ModelKind::raf_relu, .n = state.range(0), .d = state.range(1)};
  const double n = static_cast<double>(spec.n), d = static_cast<double>(spec.d);
  batched_loop(state, spec, 2.0 * (8.0 * n * d + d * d), 2.0 * (8.0 * n * d + 3.0 * d * d));
}
BENCHMARK(BM_RafReluBatchedObjective)->Args({250, 768, 35})->Unit(benchmark::kMillisecond);

void BM_RfBatchedObjective(benchmark::State& state) {
  const Index n = state.range(0), d = state.range(1);
  const ModelSpec spec{
      .kind = ModelKind::rf, .n = n, .d = d, .k = state.range(3) == 0 ? n * d : state.range(3)};
  batched_loop(state, spec, 2.0 * 2.0 * static_cast<double>(spec.k) * static_cast<double>(d));
}
// k = D at n = 40, d = 192 (k·d = 5.9 M) with and without batching, and at the paper's largest
// point n = 150, d = 768 (V_i: 708 MB) with the 4 ascents of a default search.
BENCHMARK(BM_RfBatchedObjective)
    ->Args({40, 192, 1, 0})
    ->Args({40, 192, 35, 0})
    ->Args({150, 768, 4, 0})
    ->Unit(benchmark::kMillisecond);

// The transformer family (models/transformer/transformer_layer.hpp), one point at a time: its
// arithmetic per point and gradient is 3n²·d + 2n·d² + 4n·d·k + 6d² + 3n·d multiply–adds (scores,
// A V and ∂A over all heads; Y W_O and its pullback; the MLP's two products both ways, k = 4d for
// block (the default mlp-width), 0 for mhraf; the moved row's inputs and their gradients; raf_v
// under the mask, which has no keys, does 2d² fewer) — "within 2× of the DGEMM bound" reads
// pct_of_dgemm ≥ 50. `peak_MiB`: the process's peak resident memory (getrusage), the model's
// weights and one evaluator's passes included.
double transformer_flops(const ModelSpec& spec) {
  const double n = static_cast<double>(spec.n), d = static_cast<double>(spec.d);
  const double k = static_cast<double>(spec.k);  // block's MLP; 0 for the others
  return 2.0 * (3.0 * n * n * d + 2.0 * n * d * d + 4.0 * n * d * k + 6.0 * d * d + 3.0 * n * d);
}

void transformer_loop(benchmark::State& state, ModelKind kind) {
  ModelSpec spec{.kind = kind, .n = state.range(0), .d = state.range(1)};
  spec.heads = state.range(3);
  if (kind == ModelKind::block) spec.k = kBlockWidthFactor * spec.d;  // the default mlp-width
  if (kind == ModelKind::raf_v) spec.mask = AttentionMask::causal;    // through the family's path
  batched_loop(state, spec, transformer_flops(spec));
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void BM_MhrafObjective(benchmark::State& state) { transformer_loop(state, ModelKind::mhraf); }
void BM_BlockObjective(benchmark::State& state) { transformer_loop(state, ModelKind::block); }
void BM_CausalRafVObjective(benchmark::State& state) { transformer_loop(state, ModelKind::raf_v); }
// The paper's largest attention point, 12 heads (d_h = 64) and one, 4 points per call.
BENCHMARK(BM_MhrafObjective)
    ->Args({250, 768, 4, 12})
    ->Args({250, 768, 4, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlockObjective)->Args({250, 768, 4, 12})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CausalRafVObjective)->Args({250, 768, 4, 1})->Unit(benchmark::kMillisecond);

// The trained family (models/trained/trained.hpp) at all-MiniLM-L6-v2's sizes, d = 384, 12 heads,
// a feed-forward of width 1536, with random weights of a layer's scales (the arithmetic is the
// weights' shapes', not their values'), n = 256 (the encoder's trained length). Arithmetic per
// point and gradient (trained_attention_update.hpp): the attention's update 5H·n·d + 6n·d + 10d²
// multiply–adds, the whole layer's feed-forward 4n·d·w more (both ways) and its LayerNorms and
// GELU (not counted). "Within 2× of its matrix-product arithmetic" reads pct_of_dgemm ≥ 50.
std::shared_ptr<const EncoderLayer> bench_encoder(Index d, Index heads, Index width) {
  std::uint32_t id = 0;
  const auto matrix = [&](Index rows, Index cols, double scale) {
    return GaussianMatrix({Philox(3, Stream::weights), 0, id++}, scale).window(0, 0, rows, cols);
  };
  const auto row = [&](Index size, double mean) -> RowVector {
    return matrix(1, size, 0.2).array() + mean;
  };
  const double unit = 1.0 / std::sqrt(static_cast<double>(d));
  auto w = std::make_shared<EncoderLayer>();
  w->heads = heads;
  for (LayerNormAffine* norm : {&w->input, &w->norm1, &w->norm2}) {
    norm->gamma = row(d, 1.0);
    norm->beta = row(d, 0.0);
  }
  w->WQ = matrix(d, d, 2.0 * unit);
  w->WK = matrix(d, d, 2.0 * unit);
  w->WV = matrix(d, d, unit);
  w->WO = matrix(d, d, unit);
  w->bQ = row(d, 0.0);
  w->bK = row(d, 0.0);
  w->bV = row(d, 0.0);
  w->bO = row(d, 0.0);
  w->W1 = matrix(d, width, unit);
  w->b1 = row(width, 0.0);
  w->W2 = matrix(width, d, 1.0 / std::sqrt(static_cast<double>(width)));
  w->b2 = row(d, 0.0);
  return w;
}

void trained_loop(benchmark::State& state, ModelKind kind) {
  ModelSpec spec{.kind = kind, .n = state.range(0), .d = state.range(1)};
  const Index heads = state.range(3), width = 4 * spec.d;
  spec.encoder = bench_encoder(spec.d, heads, width);
  const double n = static_cast<double>(spec.n), d = static_cast<double>(spec.d);
  const double H = static_cast<double>(heads), w = static_cast<double>(width);
  const bool layer = kind == ModelKind::trained_layer;
  batched_loop(
      state, spec,
      2.0 * (5.0 * H * n * d + 6.0 * n * d + 10.0 * d * d + (layer ? 4.0 * n * d * w : 0)));
}

void BM_TrainedAttentionObjective(benchmark::State& state) {
  trained_loop(state, ModelKind::trained_attn);
}
void BM_TrainedLayerObjective(benchmark::State& state) {
  trained_loop(state, ModelKind::trained_layer);
}
BENCHMARK(BM_TrainedAttentionObjective)
    ->Args({256, 384, 8, 12})
    ->Args({256, 384, 3, 12})  // the study's ascents climb 3 points per call
    ->Args({64, 384, 8, 12})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TrainedLayerObjective)
    ->Args({256, 384, 8, 12})
    ->Args({64, 384, 8, 12})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wordsens
