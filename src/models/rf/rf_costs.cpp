#include "models/rf/rf_costs.hpp"

#include <algorithm>

#include "models/bounds/float_gram.hpp"
#include "models/rf/rf_marginal.hpp"

namespace wordsens {

double float_gram_speedup() {
  const bool wide = cost_host().avx512 && FloatGram::wide_kernel_compiled();
  return wide ? kFloatGramSpeedupAvx512 : kFloatGramSpeedup;
}

double RfCosts::evaluation(const CostShape& s) const { return 4.0 * s.k * s.d / kRfBatchedSpeedup; }

double RfCosts::features(const CostShape& s) const { return 2.0 * s.k * s.n * s.d; }

double RfCosts::weights(const CostShape& s) const { return generation_cost() * s.k * s.n * s.d; }

// The word's column block generated (and its product).
double RfCosts::position_setup(const CostShape& s) const {
  return (generation_cost() + 2.0) * s.k * s.d;
}

double RfCosts::sample_setup(const CostShape& /*s*/) const { return 0.0; }

// The k × m·d block is read twice per round of points (forward and back), not fused like the
// single word's (measured: n = 150, d = 128, m = 8: 12 ms per evaluation, about twice the mix's
// rate).
double RfCosts::set_evaluation(const CostShape& s, double words) const {
  return 4.0 * s.k * s.d * words / 2.0;
}

// The set's column blocks drawn and, for the guided start, each block's spectrum (k·d², dense);
// the certified bound of the set: its blocks generated again and their single-precision Gram at
// float_gram_speedup() times the dense rate.
double RfCosts::set_setup(const CostShape& s, const CostOptions& o, double words) const {
  const double k = s.k, d = s.d;
  const double bound = o.upper_bound
                           ? generation_cost() * k * d * words +
                                 k * words * d * words * d / (float_gram_speedup() * kDenseSpeedup)
                           : 0.0;
  const double guided = o.guided_start ? words * k * d * d / kDenseSpeedup : 0.0;
  return (generation_cost() + 2.0) * k * d * words + guided + bound;
}

// V_i forward and back.
double RfCosts::single_point_evaluation(const CostShape& s) const { return 4.0 * s.k * s.d; }

// gen's searches read V_i once per round of points, fused like ws's (rf_evaluator.cpp), at about
// ws's batched rate although their rounds are narrower (measured: paper_gen.ini's rf at n = 120,
// d = 768, 20 ms per point against 29 ms priced here).
double RfCosts::gen_point_evaluation(const CostShape& s) const { return evaluation(s); }

// rf's joint ascents stay near its single-word count (180–220, multiword.ini).
double RfCosts::multi_word_growth(double /*words*/) const { return 1.0; }

// Full sampler: two passes over V (a = V vec(X) for the search; then the certification's plain
// φ(X), φ(X') with, when S_upper is asked for, every word's single-precision Gram V_iᵀV_i, n·k·d²
// flops at float_gram_speedup() times the dense double rate), and the double spectrum of the
// first examined word for the guided start (k·d²). Marginal sampler: only the examined words'
// blocks V_i are drawn (counted in the set-up) and a = Σ_i V_i x_i plus a Gaussian residual: no
// pass over the k × D matrix.
double RfCosts::ws_outside_search(const CostShape& s, const CostOptions& o,
                                  double positions) const {
  const double n = s.n, d = s.d, k = s.k;
  if (o.marginal_sampler) return positions * 2.0 * (k * d);
  const double passes = 2.0 * weights(s) + 3.0 * features(s) / kDenseSpeedup;
  const double bound = o.upper_bound ? n * k * d * d / (float_gram_speedup() * kDenseSpeedup) : 0.0;
  const double guided = o.guided_start ? k * d * d / kDenseSpeedup : 0.0;
  return passes + bound + guided;
}

// V generated again by each pass: a = V vec(X), then φ(X) and φ(X^M(Δ*)) from scratch for the
// certification.
double RfCosts::multi_word_outside_search(const CostShape& s) const {
  return weights(s) * 3.0 + 3.0 * features(s) / kDenseSpeedup;
}

// Full sampler: V is generated four times (a = V vec(X) for the search, gram, transpose_apply,
// and the certification's φ of the searches' changed texts, all in one pass), priced as the two
// passes of the N + 1 texts (gram and transpose_apply) at kStreamedGenDenseShare, the calibration
// on paper_glove_brown.ini absorbing the rest. Marginal sampler: per pass over the
// k rows (gram and transpose_apply; one when gram keeps Φ for the transpose, rf_marginal.hpp),
// R_b = F Z_b (M²·k) and X_P V_Pᵀ (2·M·|P|·d·k), the rank update (M²·k, gram only), and once the
// residual covariance (M²·(D − |P|·d)) and its Cholesky factor (M³/3), then the head's (N³/3);
// normals: k·(M + |P|·d) per pass.
double RfCosts::gen_outside_search(const CostShape& s, const CostOptions& o, double N, double p,
                                   double positions) const {
  if (!o.marginal_sampler) {
    return 2.0 * weights(s) + (2.0 * (N + 1.0) * features(s) + N * N * p + N * N * N / 3.0) /
                                  (kStreamedGenDenseShare * kDenseSpeedup);
  }
  const double M = N + 1.0, k = s.k, d = s.d, D = s.n * s.d;
  const double passes = MarginalRandomFeatures::keeps_features(M, k) ? 1.0 : 2.0;
  const double normals = passes * k * (N + 1.0 + positions * d);
  const double dense = passes * (M * M * k + 2.0 * M * positions * d * k) + M * M * k +
                       M * M * (D - positions * d) + M * M * M / 3.0;
  return generation_cost() * normals + dense / kDenseSpeedup + (N * N * N / 3.0) / kDenseSpeedup;
}

// The examined word's block V_i (k × d; a set's m blocks), which the batched search reads 64 rows
// at a time, and a few k-vectors; the full sampler streams V by column blocks. Measured peak
// resident memory less the process's: n = 150, d = 768, k = D: 700 MB (full and marginal); n = 100,
// d = 384, marginal: 122 MB; n = 60, d = 256, full: 35 MB.
double RfCosts::ws_memory(const CostShape& s, const CostOptions& /*o*/,
                          const SearchShape& q) const {
  return 1.02 * 8.0 * s.k * s.d * q.words + 8.0 * 8.0 * s.k;
}

// The N + 1 texts (M × D) and, with the full sampler, their stacked copy, which one pass over V
// turns into the Gram, and the head's M × M matrices; then the searched block V_i. The marginal
// sampler keeps Φ (M × k) for the transpose when it takes at most 2 GiB (rf_marginal.hpp).
// Measured peak resident memory (n = 40, d = 768, N = 1100): 619 MB full (633 priced), 616 MB
// marginal; less the process's, n = 50, d = 64, N = 2000, full: 250 MB (240 priced).
double RfCosts::gen_memory(const CostShape& s, const CostOptions& o, double N, double /*p*/) const {
  const double M = N + 1.0, D = s.n * s.d, k = s.k, d = s.d;
  if (o.marginal_sampler) {
    const double kept = MarginalRandomFeatures::keeps_features(M, k) ? M * k : 0.0;
    return 1.1 * 8.0 * (M * D + 3.0 * M * M + std::max(k * d, kept));
  }
  return 1.1 * 8.0 * (M * D + std::max(M * D, k * d)) + 8.0 * 4.0 * M * M;
}

}  // namespace wordsens
