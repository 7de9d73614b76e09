#pragma once
// rf's prices (models/shared/model_costs.hpp), with the full sampler (V streamed by column
// blocks, generated again by each pass) and the marginal one (only the examined words' blocks).
#include "models/shared/model_costs.hpp"

namespace wordsens {

/// How much faster than kDenseSpeedup's dense double rate rf's single-precision word Grams (the
/// certified bound) run: the build's SIMD kernel, and the AVX-512 kernel chosen at run time
/// (bench_wordsens BM_FloatGramKernel: 72 and 129 Gflop/s at the symmetric count, against
/// BM_Dgemm's 48).
inline constexpr double kFloatGramSpeedup = 2.0;
inline constexpr double kFloatGramSpeedupAvx512 = 3.6;

/// kFloatGramSpeedup or kFloatGramSpeedupAvx512, for the kernel cost_host() runs.
[[nodiscard]] double float_gram_speedup();

#if defined(__AVX2__) && defined(__FMA__)
/// How much faster than the mix rf's batched objective runs (V_i read once per round of 4
/// points, 64 rows at a time while cached): calibrated on the wall times of paper_ws_rf.ini
/// (marginal sampler, where the ascents are nearly all of a task) and paper_ws_rf_bound.ini (full
/// sampler with the bound), 2 ranks, the AMD EPYC host with AVX-512, 2026-12-02: 5 min 10 s and
/// 10 min 32 s measured, 5 min 12 s and 10 min 32 s priced (7 min 15 s and 11 min 24 s at the
/// earlier 3.0). One task alone, n = 150, d = 768, marginal, 665 evaluations: 19.2 s.
inline constexpr double kRfBatchedSpeedup = 4.2;
#else
inline constexpr double kRfBatchedSpeedup = 1.5;  // scaled like the v3 value (not measured)
#endif

class RfCosts final : public ModelCosts {
 public:
  [[nodiscard]] double evaluation(const CostShape& s) const override;
  [[nodiscard]] double features(const CostShape& s) const override;
  [[nodiscard]] double weights(const CostShape& s) const override;
  [[nodiscard]] double position_setup(const CostShape& s) const override;
  [[nodiscard]] double sample_setup(const CostShape& s) const override;
  [[nodiscard]] double set_evaluation(const CostShape& s, double words) const override;
  [[nodiscard]] double set_setup(const CostShape& s, const CostOptions& o,
                                 double words) const override;
  [[nodiscard]] double single_point_evaluation(const CostShape& s) const override;
  [[nodiscard]] double gen_point_evaluation(const CostShape& s) const override;
  [[nodiscard]] double ws_evaluations_per_start() const override;
  [[nodiscard]] double gen_evaluations_per_start() const override;
  [[nodiscard]] double multi_word_growth(double words) const override;
  [[nodiscard]] double ws_memory(const CostShape& s, const CostOptions& o,
                                 const SearchShape& q) const override;
  [[nodiscard]] double gen_memory(const CostShape& s, const CostOptions& o, double N,
                                  double p) const override;
  [[nodiscard]] double ws_outside_search(const CostShape& s, const CostOptions& o,
                                         double positions) const override;
  [[nodiscard]] double multi_word_outside_search(const CostShape& s) const override;
  [[nodiscard]] double gen_outside_search(const CostShape& s, const CostOptions& o, double N,
                                          double p, double positions) const override;
};

}  // namespace wordsens
