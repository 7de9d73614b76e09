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

/// kFloatGramSpeedup or kFloatGramSpeedupAvx512, for the kernel this process runs.
[[nodiscard]] double float_gram_speedup();

#if defined(__AVX2__) && defined(__FMA__)
/// How much faster than the mix rf's batched objective runs (V_i read once per round of 4
/// points, 64 rows at a time while cached): calibrated on ws rf, k = D, first word, with the
/// bound, at n = 150, d = 768 (245 s), n = 50, d = 768 (44 s) and n = 150, d = 192 (8.6 s), one
/// rank.
inline constexpr double kRfBatchedSpeedup = 3.0;
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
  [[nodiscard]] double ws_outside_search(const CostShape& s, const CostOptions& o,
                                         double positions) const override;
  [[nodiscard]] double multi_word_outside_search(const CostShape& s) const override;
  [[nodiscard]] double gen_outside_search(const CostShape& s, const CostOptions& o, double N,
                                          double p, double positions) const override;
};

}  // namespace wordsens
