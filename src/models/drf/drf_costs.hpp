#pragma once
// drf's prices (models/shared/model_costs.hpp): the first layer's k × d block of a word, then the
// k × k layers, as GEMMs over the points of a group of positions (drf.cpp).
#include "models/shared/model_costs.hpp"

namespace wordsens {

/// drf's evaluation runs at the mix's rate when the layers come from memory, about this much
/// faster when they stay in the last-level cache (measured on 2 ranks: the default study's drf at
/// d = 64, L = 2, k = 256 and 512, 0.52 s and 3.3 s a task against 2.65 s and 19 s priced at the
/// mix's rate; one rank: `wordsens ws --model drf --n 64 --d 64 --k 512 --layers 2 --positions
/// all --max-evals 200 --trials 2 --seed 1`, 2.6 s a trial, 3.7 s before the GEMMs). The same
/// factor for the baseline build (not measured).
inline constexpr double kCachedDrfSpeedup = 5.0;
/// Beyond the cache, the hidden layers of a call of up to 8 points are multiplied by blocks of
/// rows without GEMM packing (hidden_layers.hpp), about this much faster than the mix: calibrated
/// on paper_ws_drf.ini's per-task times (90 tasks, n = 5, 10, 20, L = 2, 4, 8, 2 ranks, the AMD
/// EPYC host, 2026-12-02): 771 s measured, 1713 s priced at the mix's rate.
inline constexpr double kRowBlockDrfSpeedup = 2.2;
/// drf layers up to this many bytes (8·(k·d + (L − 1)·k²)) count as cached: half the 32 MiB
/// last-level cache of the calibration machine, which two ranks share.
inline constexpr double kDrfCacheBytes = 16.0 * 1024 * 1024;

class DrfCosts final : public ModelCosts {
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
  [[nodiscard]] double ws_evaluations_per_start() const override;
  [[nodiscard]] double gen_evaluations_per_start() const override;
  [[nodiscard]] double multi_word_growth(double words) const override;
  [[nodiscard]] double ws_memory(const CostShape& s, const CostOptions& o,
                                 const SearchShape& q) const override;
  [[nodiscard]] double gen_memory(const CostShape& s, const CostOptions& o, double N,
                                  double p) const override;
};

}  // namespace wordsens
