#pragma once
// The attention models' prices (models/shared/model_costs.hpp): raf and raf_relu evaluate alike
// and differ in how long their ascents run. Their calibrated constants (kBatchedSpeedup,
// kPerCoreCacheBytes, kCachedAttentionSpeedup) are rows of models/calibration.tsv.
#include "models/shared/model_costs.hpp"

namespace wordsens {

class AttentionCosts final : public ModelCosts {
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
  [[nodiscard]] double multi_word_growth(double words) const override;
  [[nodiscard]] double ws_memory(const CostShape& s, const CostOptions& o,
                                 const SearchShape& q) const override;
};

/// raf_v's prices (value_attention.hpp): raf's, plus its projection P = W_V W_O, one dense
/// n × d by d × d product per features, per evaluation and per pullback; its word sets are
/// evaluated from scratch.
class ValueAttentionCosts final : public ModelCosts {
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
  [[nodiscard]] double multi_word_growth(double words) const override;
  [[nodiscard]] double ws_memory(const CostShape& s, const CostOptions& o,
                                 const SearchShape& q) const override;

 private:
  AttentionCosts attention_;  // the prices of A X', which raf_v shares with raf
};

}  // namespace wordsens
