// Every model of the catalogue prices its own work (models/shared/model_costs.hpp): a model
// without costs, or with a price that is not a positive finite number of flops, fails here
// instead of being priced as another model by the cost model.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "core/cpu_features.hpp"
#include "core/errors.hpp"
#include "models/shared/model_costs.hpp"
#include "models/shared/model_kind.hpp"

namespace wordsens {
namespace {

bool positive_finite(double flops) { return std::isfinite(flops) && flops > 0.0; }

TEST(ModelCosts, EveryModelPricesEveryStep) {
  for (const ModelTraits& t : all_models()) {
    const ModelCosts& costs = model_costs(t.kind);
    const CostShape shape{32, 64, t.attention ? 0.0 : 512.0, t.deep ? 3.0 : 1.0};
    for (const bool bound : {false, true}) {
      const CostOptions options{bound, true, t.marginal_sampler};
      EXPECT_TRUE(positive_finite(costs.set_setup(shape, options, 4.0))) << t.name;
      EXPECT_TRUE(positive_finite(costs.ws_outside_search(shape, options, 5.0))) << t.name;
      EXPECT_TRUE(positive_finite(costs.gen_outside_search(shape, options, 20.0, 512.0, 5.0)))
          << t.name;
    }
    EXPECT_TRUE(positive_finite(costs.evaluation(shape))) << t.name;
    EXPECT_TRUE(positive_finite(costs.features(shape))) << t.name;
    EXPECT_TRUE(positive_finite(costs.weights(shape))) << t.name;
    EXPECT_TRUE(positive_finite(costs.position_setup(shape))) << t.name;
    EXPECT_GE(costs.sample_setup(shape), 0.0) << t.name;
    EXPECT_TRUE(positive_finite(costs.set_evaluation(shape, 4.0))) << t.name;
    EXPECT_TRUE(positive_finite(costs.single_point_evaluation(shape))) << t.name;
    EXPECT_TRUE(positive_finite(costs.gen_point_evaluation(shape))) << t.name;
    EXPECT_TRUE(positive_finite(costs.multi_word_outside_search(shape))) << t.name;
    const SearchLengths& lengths = search_lengths(t.kind);
    EXPECT_TRUE(positive_finite(lengths.ws_evaluations_per_start)) << t.name;
    EXPECT_TRUE(positive_finite(lengths.gen_evaluations_per_start)) << t.name;
    EXPECT_GE(lengths.ws_share_at_budget, 0.0) << t.name;
    EXPECT_LT(lengths.ws_share_at_budget, 1.0) << t.name;
    EXPECT_GE(costs.multi_word_growth(8.0), 1.0) << t.name;
  }
}

// The prices grow with the work: a longer text never costs less, nor do more words changed.
TEST(ModelCosts, GrowWithTheTextAndTheWords) {
  for (const ModelTraits& t : all_models()) {
    const ModelCosts& costs = model_costs(t.kind);
    const double k = t.attention ? 0.0 : 256.0;
    const CostShape short_text{16, 64, k, 2}, long_text{64, 64, k, 2};
    EXPECT_LE(costs.features(short_text), costs.features(long_text)) << t.name;
    EXPECT_LE(costs.evaluation(short_text), costs.evaluation(long_text)) << t.name;
    EXPECT_LT(costs.set_evaluation(long_text, 2.0), costs.set_evaluation(long_text, 8.0)) << t.name;
  }
}

// Under a causal mask raf, raf_relu and raf_v run through the transformer family's evaluator,
// from scratch (O(n²·d + n·d²) a point, against raf's O(n·d + d²)): they are priced by it, and a
// model whose own evaluator takes the mask keeps its prices.
TEST(ModelCosts, TheCausalMaskPricesTheEvaluatorThatRuns) {
  const CostShape paper{250, 768, 0.0, 1.0};
  for (const ModelKind kind : {ModelKind::raf, ModelKind::raf_relu, ModelKind::raf_v}) {
    const ModelCosts& plain = model_costs(kind);
    const ModelCosts& masked = model_costs(kind, AttentionMask::causal);
    EXPECT_NE(&plain, &masked) << to_string(kind);
    EXPECT_GT(masked.evaluation(paper), plain.evaluation(paper)) << to_string(kind);
    EXPECT_EQ(search_lengths(kind, AttentionMask::causal).ws_evaluations_per_start,
              search_lengths(kind).ws_evaluations_per_start);
  }
  for (const ModelKind kind : {ModelKind::rf, ModelKind::mhraf, ModelKind::block}) {
    EXPECT_EQ(&model_costs(kind), &model_costs(kind, AttentionMask::causal)) << to_string(kind);
  }
}

// block's MLP is priced at the task's width k (mlp-width): wider costs more, in its evaluations
// and in its weights; mhraf, which has no MLP, does not read k.
TEST(ModelCosts, TheBlocksMlpIsPricedAtItsWidth) {
  const CostShape narrow{32, 64, 64.0, 1.0}, wide{32, 64, 1024.0, 1.0};
  const ModelCosts& block = model_costs(ModelKind::block);
  EXPECT_GT(block.evaluation(wide), 2.0 * block.evaluation(narrow));
  EXPECT_GT(block.weights(wide), 2.0 * block.weights(narrow));
  const ModelCosts& mhraf = model_costs(ModelKind::mhraf);
  EXPECT_EQ(mhraf.evaluation(wide), mhraf.evaluation(narrow));
  EXPECT_EQ(mhraf.weights(wide), mhraf.weights(narrow));
}

// $WORDSENS_COST_HOST prices as on the CPU it names (the docs' check pins avx2 so that their
// dry-run figures read the same on any machine); a PricedAs still wins; anything else is one
// InputError naming the variable.
TEST(ModelCosts, TheCostHostCanBeNamedInTheEnvironment) {
  ASSERT_EQ(std::getenv("WORDSENS_COST_HOST"), nullptr);
  EXPECT_EQ(cost_host().avx512, cpu_has_avx512f());
  setenv("WORDSENS_COST_HOST", "avx512", 1);
  EXPECT_TRUE(cost_host().avx512);
  EXPECT_EQ(generation_cost(), kGenerationCostAvx512);
  setenv("WORDSENS_COST_HOST", "avx2", 1);
  EXPECT_FALSE(cost_host().avx512);
  EXPECT_EQ(generation_cost(), kGenerationCost);
  {
    const PricedAs pinned(CostHost{.avx512 = true});
    EXPECT_TRUE(cost_host().avx512);
  }
  setenv("WORDSENS_COST_HOST", "sse", 1);
  try {
    (void)cost_host();
    ADD_FAILURE() << "no error for WORDSENS_COST_HOST=sse";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("WORDSENS_COST_HOST"), std::string::npos) << e.what();
  }
  unsetenv("WORDSENS_COST_HOST");
  EXPECT_EQ(cost_host().avx512, cpu_has_avx512f());
}

}  // namespace
}  // namespace wordsens
