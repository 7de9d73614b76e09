#pragma once
// rf's prices (models/shared/model_costs.hpp), with the full sampler (V streamed by column
// blocks, generated again by each pass) and the marginal one (only the examined words' blocks).
// Its calibrated constants (kFloatGramSpeedup, kFloatGramSpeedupAvx512, kRfBatchedSpeedup) are
// rows of models/calibration.tsv.
#include "models/shared/model_costs.hpp"

namespace wordsens {

/// kFloatGramSpeedup or kFloatGramSpeedupAvx512, for the kernel cost_host() runs.
[[nodiscard]] double float_gram_speedup();

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
