#pragma once
// The attention models' prices (models/shared/model_costs.hpp): raf and raf_relu evaluate alike
// and differ in how long their ascents run.
#include "models/shared/model_costs.hpp"

namespace wordsens {

#if defined(__AVX2__) && defined(__FMA__)
/// How much faster than the mix raf's batched word-sensitivity objective runs, with both cores
/// busy (two ranks share the caches the GEMMs repack their operands through: a raf task at
/// n = 250, d = 768 takes 30–35 s alone and 50 s next to another rank). Calibrated on the wall
/// times of paper_ws.ini and regime_map.ini (720 raf and raf_relu tasks, raced, 2 ranks, the AMD
/// EPYC host with AVX-512, 2026-12-02): 8 min 34 s and 1 min 36 s measured, 8 min 52 s and
/// 1 min 21 s priced (19 min 31 s together at 3.5, calibrated before raf's rounds of 64 points
/// and the race).
inline constexpr double kBatchedSpeedup = 6.9;
#else
inline constexpr double kBatchedSpeedup = 1.75;  // scaled like the v3 value (not measured)
#endif
/// gen's single-point evaluations with W in the per-core (L2) cache: see
/// AttentionCosts::single_point_evaluation.
inline constexpr double kPerCoreCacheBytes = 1024.0 * 1024.0;
inline constexpr double kCachedAttentionSpeedup = 2.2;

class AttentionCosts final : public ModelCosts {
 public:
  /// `ws_evaluations_per_start`: the typical count of the model's ascents at the default budget;
  /// `ws_share_at_budget`: the share of them that runs until any budget (ModelCosts).
  explicit AttentionCosts(double ws_evaluations_per_start, double ws_share_at_budget = 0.0)
      : ws_evaluations_per_start_(ws_evaluations_per_start),
        ws_share_at_budget_(ws_share_at_budget) {}

  [[nodiscard]] double evaluation(const CostShape& s) const override;
  [[nodiscard]] double features(const CostShape& s) const override;
  [[nodiscard]] double weights(const CostShape& s) const override;
  [[nodiscard]] double position_setup(const CostShape& s) const override;
  [[nodiscard]] double sample_setup(const CostShape& s) const override;
  [[nodiscard]] double set_evaluation(const CostShape& s, double words) const override;
  [[nodiscard]] double set_setup(const CostShape& s, const CostOptions& o,
                                 double words) const override;
  [[nodiscard]] double single_point_evaluation(const CostShape& s) const override;
  [[nodiscard]] double ws_evaluations_per_start() const override {
    return ws_evaluations_per_start_;
  }
  [[nodiscard]] double gen_evaluations_per_start() const override;
  [[nodiscard]] double ws_share_at_budget() const override { return ws_share_at_budget_; }
  [[nodiscard]] double multi_word_growth(double words) const override;
  [[nodiscard]] double ws_memory(const CostShape& s, const CostOptions& o,
                                 const SearchShape& q) const override;

 private:
  double ws_evaluations_per_start_;
  double ws_share_at_budget_;
};

/// raf_v's prices (value_attention.hpp): raf's, plus its projection P = W_V W_O, one dense
/// n × d by d × d product per features, per evaluation and per pullback; its word sets are
/// evaluated from scratch.
class ValueAttentionCosts final : public ModelCosts {
 public:
  explicit ValueAttentionCosts(double ws_evaluations_per_start)
      : attention_(ws_evaluations_per_start) {}

  [[nodiscard]] double evaluation(const CostShape& s) const override;
  [[nodiscard]] double features(const CostShape& s) const override;
  [[nodiscard]] double weights(const CostShape& s) const override;
  [[nodiscard]] double position_setup(const CostShape& s) const override;
  [[nodiscard]] double sample_setup(const CostShape& s) const override;
  [[nodiscard]] double set_evaluation(const CostShape& s, double words) const override;
  [[nodiscard]] double set_setup(const CostShape& s, const CostOptions& o,
                                 double words) const override;
  [[nodiscard]] double single_point_evaluation(const CostShape& s) const override;
  [[nodiscard]] double ws_evaluations_per_start() const override {
    return attention_.ws_evaluations_per_start();
  }
  [[nodiscard]] double gen_evaluations_per_start() const override;
  [[nodiscard]] double multi_word_growth(double words) const override;
  [[nodiscard]] double ws_memory(const CostShape& s, const CostOptions& o,
                                 const SearchShape& q) const override;

 private:
  AttentionCosts attention_;  // the prices of A X', which raf_v shares with raf
};

}  // namespace wordsens
