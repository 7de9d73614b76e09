// Per-evaluation cost of f_i(Δ) and its gradient (docs/PERFORMANCE.md), and sweeps over n showing
// the growth is n·d + d² (raf) and k·d (rf), not n²·d or k·D.
#include <benchmark/benchmark.h>

#include "core/gaussian.hpp"
#include "data/synthetic.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {
namespace {

/// One objective evaluation plus gradient, as the WS estimator does it: φ' = φ(X^i(Δ)),
/// r = 2(φ' − φ) in place, ∇f = pullback(r), f = ‖r‖²/4.
void evaluate_loop(benchmark::State& state, const ModelSpec& spec) {
  const auto model = make_feature_map(spec, {1, 0});
  const Matrix X = synthetic_sample(1, spec.n, spec.d, 0, 0);
  auto evaluator = model->at_position(X, spec.n / 2);
  const GaussianMatrix starts({Philox(1, Stream::ascent_starts), 0, 0}, 1.0);
  const Vector delta = starts.row_segment(0, 0, spec.d);
  Vector phi(model->feature_dim()), grad(spec.d), residual(model->feature_dim());
  for (auto _ : state) {
    evaluator->features_at(delta, phi);
    residual = 2.0 * (phi - evaluator->base_features());
    evaluator->pullback(residual, grad);
    benchmark::DoNotOptimize(0.25 * residual.squaredNorm());
    benchmark::DoNotOptimize(grad.data());
  }
  state.counters["n"] = static_cast<double>(spec.n);
  state.counters["d"] = static_cast<double>(spec.d);
}

void BM_RafEvaluation(benchmark::State& state) {
  ModelSpec spec{.kind = ModelKind::raf, .n = state.range(0), .d = state.range(1)};
  evaluate_loop(state, spec);
}
// The paper's largest attention point, and a sweep over n at d = 768 (cost ∝ n·d + d²).
BENCHMARK(BM_RafEvaluation)
    ->Args({250, 768})
    ->Args({100, 256})
    ->Args({50, 768})
    ->Args({100, 768})
    ->Args({200, 768})
    ->Args({400, 768})
    ->Unit(benchmark::kMicrosecond);

/// The evaluator alone: features_at then pullback of a fixed cotangent, without the estimator's
/// O(n·d) residual arithmetic (φ' − φ, its norm and 2(φ' − φ): three more passes over n·d arrays).
void BM_RafEvaluatorOnly(benchmark::State& state) {
  const ModelSpec spec{.kind = ModelKind::raf, .n = state.range(0), .d = state.range(1)};
  const auto model = make_feature_map(spec, {1, 0});
  const Matrix X = synthetic_sample(1, spec.n, spec.d, 0, 0);
  auto evaluator = model->at_position(X, spec.n / 2);
  const GaussianMatrix starts({Philox(1, Stream::ascent_starts), 0, 0}, 1.0);
  const Vector delta = starts.row_segment(0, 0, spec.d);
  Vector phi(model->feature_dim()), grad(spec.d);
  evaluator->features_at(delta, phi);
  const Vector cotangent = 2.0 * (phi - evaluator->base_features());
  for (auto _ : state) {
    evaluator->features_at(delta, phi);
    benchmark::DoNotOptimize(phi.data());
    evaluator->pullback(cotangent, grad);
    benchmark::DoNotOptimize(grad.data());
  }
}
BENCHMARK(BM_RafEvaluatorOnly)->Args({250, 768})->Args({50, 768})->Unit(benchmark::kMicrosecond);

void BM_RafReluEvaluation(benchmark::State& state) {
  ModelSpec spec{.kind = ModelKind::raf_relu, .n = state.range(0), .d = state.range(1)};
  evaluate_loop(state, spec);
}
BENCHMARK(BM_RafReluEvaluation)->Args({250, 768})->Unit(benchmark::kMicrosecond);

void BM_RfEvaluation(benchmark::State& state) {
  const Index n = state.range(0), d = state.range(1);
  ModelSpec spec{
      .kind = ModelKind::rf, .n = n, .d = d, .k = state.range(2) == 0 ? n * d : state.range(2)};
  evaluate_loop(state, spec);
}
// k = D at the reference point n = 80, d = 64; then fixed k with growing n (cost ∝ k·d, flat in
// n) and k = D with growing n (∝ n·d²).
BENCHMARK(BM_RfEvaluation)
    ->Args({80, 64, 0})
    ->Args({20, 64, 5120})
    ->Args({80, 64, 5120})
    ->Args({320, 64, 5120})
    ->Args({40, 64, 0})
    ->Args({160, 64, 0})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace wordsens
