#pragma once
// The trained family's prices (models/shared/model_costs.hpp). The shape of a task says n and d;
// the encoder fixes the rest, priced here at all-MiniLM-L6-v2's: heads 32 wide (H = d/32) and a
// feed-forward of width 4d. Evaluations: trained_attention_update.hpp (attention O(H·n·d + d²) per
// point), the whole layer's feed-forward O(n·d·w) per point on top; word sets and φ: the plain
// pass (trained_pass.hpp).
#include "models/shared/model_costs.hpp"
#include "models/trained/trained_pass.hpp"

namespace wordsens {

class TrainedCosts final : public ModelCosts {
 public:
  explicit TrainedCosts(TrainedPart part) : part_(part) {}

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

 private:
  /// Multiply–adds of the feed-forward on every row, one way (0 for the attention alone).
  [[nodiscard]] double feed_forward(const CostShape& s) const;
  /// Multiply–adds of the plain pass (trained_pass.hpp), one way.
  [[nodiscard]] double plain_pass(const CostShape& s) const;

  TrainedPart part_;
};

}  // namespace wordsens
