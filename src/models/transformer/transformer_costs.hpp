#pragma once
// The transformer family's prices (models/shared/model_costs.hpp): one evaluation is a forward
// and a backward pass from scratch (transformer_layer.hpp), in matrix–matrix products.
#include "models/shared/model_costs.hpp"

namespace wordsens {

/// Which parts a model of the family has (transformer.hpp).
struct TransformerParts {
  bool keys = true;         // Q and K (else raf's W)
  bool projections = true;  // V and O
  bool mlp = false;         // an MLP of the task's width k
};

class TransformerCosts final : public ModelCosts {
 public:
  explicit TransformerCosts(TransformerParts parts) : parts_(parts) {}

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
  /// Multiply–adds of the passes after the inputs' rows (scores, heads, O, MLP), one way.
  [[nodiscard]] double dense_pass(const CostShape& s) const;
  /// Multiply–adds of one row of U Q, U K, U V (one way).
  [[nodiscard]] double input_row(const CostShape& s) const;

  TransformerParts parts_;
};

}  // namespace wordsens
