#include "models/shared/model_kind.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "models/shared/feature_map.hpp"
#include "unit/models/test_encoder.hpp"

namespace wordsens {
namespace {

// The paper's four models first, in this order; the models beyond the paper after them.
TEST(ModelKind, NamesAndKindsRoundTripInTheCanonicalOrder) {
  const auto models = all_models();
  ASSERT_GE(models.size(), 4u);
  const char* order[] = {"rf", "drf", "raf", "raf_relu"};
  std::string listed, piped;
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (i < 4) {
      EXPECT_EQ(models[i].name, order[i]);
    }
    EXPECT_EQ(static_cast<std::size_t>(models[i].kind), i);  // traits() indexes by kind
    EXPECT_EQ(model_kind(models[i].name), models[i].kind);
    EXPECT_EQ(&traits(models[i].kind), &models[i]);
    listed += (i > 0 ? ", " : "") + std::string(models[i].name);
    piped += (i > 0 ? "|" : "") + std::string(models[i].name);
  }
  EXPECT_EQ(known_model_list().rfind("rf, drf, raf, raf_relu", 0), 0u);
  EXPECT_EQ(known_model_list(), listed);
  EXPECT_EQ(known_model_list("|"), piped);
}

TEST(ModelKind, AnUnknownNameIsRefusedNamingTheKnownOnes) {
  EXPECT_FALSE(find_model("RF").has_value());
  EXPECT_FALSE(find_model("").has_value());
  try {
    (void)model_kind("attention");
    FAIL() << "an unknown name was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown model 'attention' (known: " + known_model_list() + ")");
  }
  EXPECT_THROW((void)model_kinds({"rf", "raf-relu"}), InputError);
}

TEST(ModelKind, ListsOfNamesAndKindsConvertBothWays) {
  const std::vector<std::string> names = {"raf_relu", "rf", "raf"};
  const std::vector<ModelKind> kinds = model_kinds(names);
  EXPECT_EQ(kinds, (std::vector<ModelKind>{ModelKind::raf_relu, ModelKind::rf, ModelKind::raf}));
  EXPECT_EQ(model_names(kinds), names);
  ASSERT_EQ(model_names().size(), all_models().size());
  for (const ModelTraits& t : all_models()) {
    EXPECT_EQ(to_string(t.kind), t.name);
    EXPECT_EQ(model_names()[static_cast<std::size_t>(t.kind)], t.name);
  }
}

// The traits say what the maps the registry builds do: attention maps have n·d features and no
// width, only drf has a depth, only rf takes the marginal sampler.
TEST(ModelKind, TraitsAgreeWithTheMapsTheRegistryBuilds) {
  for (const ModelTraits& t : all_models()) {
    ModelSpec spec;
    spec.kind = t.kind;
    spec.n = 5;
    spec.d = 3;
    spec.k = 7;
    spec.layers = 2;
    // A pretrained encoder's layer comes with its weights (here a small random one, d = 3).
    if (t.encoder) spec = testing::with_test_encoder(spec, 1);
    const auto map = make_feature_map(spec, WeightKey{1, 0});
    EXPECT_EQ(map->feature_dim(), t.attention ? 15 : 7) << t.name;
    spec.sampling = RfSampling::marginal;
    if (t.marginal_sampler) {
      const Index positions[] = {0};
      EXPECT_NO_THROW((void)make_feature_map(spec, WeightKey{1, 0}, positions)) << t.name;
    } else {
      EXPECT_THROW((void)make_feature_map(spec, WeightKey{1, 0}), InputError) << t.name;
    }
  }
  EXPECT_TRUE(traits(ModelKind::drf).deep);
  EXPECT_FALSE(traits(ModelKind::rf).deep || traits(ModelKind::raf).deep ||
               traits(ModelKind::raf_relu).deep);
}

}  // namespace
}  // namespace wordsens
