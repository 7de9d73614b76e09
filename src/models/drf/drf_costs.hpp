#pragma once
// drf's prices (models/shared/model_costs.hpp): the first layer's k × d block of a word, then the
// k × k layers, as GEMMs over the points of a group of positions (drf.cpp). Its calibrated
// constants (kCachedDrfSpeedup, kRowBlockDrfSpeedup, kDrfCacheBytes) are rows of
// models/calibration.tsv.
#include "models/shared/model_costs.hpp"

namespace wordsens {

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
  [[nodiscard]] double multi_word_growth(double words) const override;
  [[nodiscard]] double ws_memory(const CostShape& s, const CostOptions& o,
                                 const SearchShape& q) const override;
  [[nodiscard]] double gen_memory(const CostShape& s, const CostOptions& o, double N,
                                  double p) const override;
};

}  // namespace wordsens
