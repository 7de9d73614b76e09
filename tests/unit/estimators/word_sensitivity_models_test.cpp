// The estimator's contract on the real models (src/models/): certified witnesses, the rf
// bracket S ≤ S_upper, no better point on a dense d = 2 grid, reproducibility.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "data/synthetic.hpp"
#include "disc_search.hpp"
#include "estimators/word_sensitivity.hpp"
#include "models/shared/feature_map.hpp"
#include "unit/models/test_encoder.hpp"

namespace wordsens {
namespace {

ModelSpec make_spec(const std::string& name, Index n, Index d, Index k, int layers = 1,
                    Activation activation = Activation::relu) {
  return {model_kind(name), n, d, k, layers, activation};
}

ModelSpec causal(ModelSpec spec) {
  spec.mask = AttentionMask::causal;
  return spec;
}

/// A trained model's spec with a small random encoder layer of its d (two heads where d is even).
ModelSpec trained(ModelSpec spec) {
  return testing::with_test_encoder(spec, spec.d % 2 == 0 ? 2 : 1);
}

/// Every model flavour the suite runs, at a small size (heads = 1: every d divides by it).
std::vector<ModelSpec> all_models(Index n, Index d, Index k) {
  return {make_spec("rf", n, d, k),
          make_spec("rf", n, d, k, 1, Activation::tanh),
          make_spec("drf", n, d, k, 1),
          make_spec("drf", n, d, k, 3),
          make_spec("drf", n, d, k, 2, Activation::tanh),
          make_spec("raf", n, d, k),
          make_spec("raf_relu", n, d, k),
          make_spec("raf_v", n, d, k),
          causal(make_spec("raf", n, d, k)),
          causal(make_spec("block", n, d, k)),
          trained(make_spec("trained_attn", n, d, k)),
          trained(make_spec("twin_attn", n, d, k)),
          trained(make_spec("trained_layer", n, d, k)),
          trained(make_spec("twin_layer", n, d, k)),
          make_spec("mhraf", n, d, k),
          make_spec("block", n, d, k)};
}

std::string label(const ModelSpec& s) {
  return std::string(traits(s.kind).name) + (s.activation == Activation::tanh ? "/tanh" : "") +
         (s.mask == AttentionMask::causal ? "/causal" : "") + " L=" + std::to_string(s.layers) +
         " n=" + std::to_string(s.n) + " d=" + std::to_string(s.d) + " k=" + std::to_string(s.k);
}

TEST(WordSensitivityModels, WitnessReproducesSFromScratchForEveryModel) {
  for (std::uint32_t task = 0; task < 3; ++task) {
    const Index n = 5 + task, d = 4 + 2 * task;
    const Matrix X = synthetic_sample(21, n, d, task, 0);
    for (const ModelSpec& spec : all_models(n, d, n * d)) {
      const auto model = make_feature_map(spec, {21, task});
      const WsResult r = estimate_word_sensitivity(*model, X, {}, 21, task);
      ASSERT_GT(r.S, 0.0) << label(spec);
      ASSERT_LE(r.witness.norm(), std::sqrt(static_cast<double>(d)) * (1 + 1e-12)) << label(spec);
      const double recomputed = sensitivity_at(*model, X, r.argmax_position, r.witness);
      EXPECT_NEAR(recomputed, r.S, 1e-9 * r.S) << label(spec) << " task " << task;
      EXPECT_EQ(r.S_upper.has_value(), spec.kind == ModelKind::rf || spec.kind == ModelKind::drf)
          << label(spec);
    }
  }
}

TEST(WordSensitivityModels, RfSNeverExceedsItsUpperBound) {
  int instances = 0;
  for (std::uint32_t task = 0; task < 130; ++task) {
    const Index n = 2 + task % 6, d = 1 + task % 5;
    const Index k = (task % 3 == 0) ? n * d : 3 + (task * 7) % 40;
    const Activation act = task % 4 == 3 ? Activation::tanh : Activation::relu;
    const std::uint32_t seed = 100 + task % 7;
    const ModelSpec spec = make_spec("rf", n, d, k, 1, act);
    const auto model = make_feature_map(spec, {seed, task});
    const Matrix X = synthetic_sample(seed, n, d, task, 0);
    // With few ReLU units all may be off: S is undefined there (the estimator says so).
    if (model->features(X).norm() == 0.0) {
      EXPECT_THROW((void)estimate_word_sensitivity(*model, X, {}, seed, task), std::runtime_error);
      continue;
    }
    WsOptions options;
    options.ascent.max_evaluations = 100;
    const WsResult r = estimate_word_sensitivity(*model, X, options, seed, task);
    ASSERT_TRUE(r.S_upper.has_value()) << label(spec);
    EXPECT_LE(r.S, *r.S_upper) << label(spec) << " task " << task;
    ++instances;
  }
  EXPECT_GE(instances, 100);
}

TEST(WordSensitivityModels, DiscGridSearchNeverBeatsTheEstimator) {
  for (const std::string name : {"rf", "drf", "raf", "raf_relu"}) {
    for (std::uint32_t task = 0; task < 6; ++task) {
      const Index n = 4 + task % 3, k = 20 + (7 * task) % 21;
      const ModelSpec spec = make_spec(name, n, 2, k, name == "drf" ? 2 : 1);
      const auto model = make_feature_map(spec, {31, task});
      const Matrix X = synthetic_sample(31, n, 2, task, 0);
      const WsResult r = estimate_word_sensitivity(*model, X, {}, 31, task);
      const double brute = testing::disc_sensitivity(*model, X);
      EXPECT_LE(brute, r.S * (1 + 1e-3)) << label(spec) << " task " << task;
    }
  }
}

TEST(WordSensitivityModels, SameSeedBitwiseIdenticalOtherTaskDifferent) {
  const Index n = 6, d = 5;
  const Matrix X = synthetic_sample(4, n, d, 0, 0);
  for (const ModelSpec& spec : all_models(n, d, 30)) {
    WsOptions options;
    options.positions = PositionSet::parse("random:4");
    const auto model = make_feature_map(spec, {4, 7});
    const WsResult a = estimate_word_sensitivity(*model, X, options, 4, 7);
    const auto again = make_feature_map(spec, {4, 7});
    const WsResult b = estimate_word_sensitivity(*again, X, options, 4, 7);
    EXPECT_EQ(std::memcmp(&a.S, &b.S, sizeof(double)), 0) << label(spec);
    EXPECT_EQ(a.witness, b.witness) << label(spec);
    EXPECT_EQ(a.evaluations, b.evaluations) << label(spec);
    const auto other = make_feature_map(spec, {4, 8});
    const WsResult c = estimate_word_sensitivity(*other, X, options, 4, 8);
    EXPECT_NE(a.S, c.S) << label(spec);
  }
}

TEST(WordSensitivityModels, FewPositionsGetAtLeastTheMinimumTotalOfSphereStarts) {
  WsOptions o;  // defaults: 2 per position, auto: at least 32 in all for attention, 0 for rf
  EXPECT_EQ(sphere_starts_per_position(o, ModelKind::raf, 1), 32);
  EXPECT_EQ(sphere_starts_per_position(o, ModelKind::raf_relu, 10), 4);
  EXPECT_EQ(sphere_starts_per_position(o, ModelKind::raf, 16), 2);
  EXPECT_EQ(sphere_starts_per_position(o, ModelKind::raf, 250), 2);
  EXPECT_EQ(sphere_starts_per_position(o, ModelKind::rf, 1), 2);
  EXPECT_EQ(sphere_starts_per_position(o, ModelKind::drf, 1), 2);
  o.min_total_sphere_starts = 0;
  EXPECT_EQ(sphere_starts_per_position(o, ModelKind::raf, 1), 2);
  o.min_total_sphere_starts = 8;
  EXPECT_EQ(sphere_starts_per_position(o, ModelKind::rf, 1), 8);
  o.sphere_starts = 0;
  EXPECT_EQ(sphere_starts_per_position(o, ModelKind::raf, 1),
            0);  // no sphere starts asked: none added
  EXPECT_EQ(parse_min_total_sphere_starts("auto"), -1);
  EXPECT_EQ(parse_min_total_sphere_starts("12"), 12);
  EXPECT_EQ(min_total_sphere_starts_text(-1), "auto");
  // Digits only, as every integer key: no sign, no spaces.
  for (const char* bad : {"", "-1", "x", "3.5", "100001", "12 ", " 12", "+12", "0x10"}) {
    EXPECT_THROW((void)parse_min_total_sphere_starts(bad), InputError) << bad;
  }
}

// At a test size: on word 0 alone the default estimator is never below one
// plain projected ascent from a random sphere point run to convergence (the reference
// procedure's shape: one random start, many steps), raf and raf_relu, 12 instances each.
TEST(WordSensitivityModels, WordZeroEstimateIsAtLeastAPlainRandomStartAscent) {
  const Index n = 40, d = 24;
  for (const std::string name : {"raf", "raf_relu"}) {
    for (std::uint32_t task = 0; task < 12; ++task) {
      const Matrix X = synthetic_sample(6, n, d, task, 0);
      const auto model = make_feature_map(make_spec(name, n, d, 0), {6, task});
      WsOptions defaults;
      defaults.positions = PositionSet::parse("first");
      WsOptions plain = defaults;
      plain.sphere_starts = 1;
      plain.screen_points = 1;
      plain.min_total_sphere_starts = 0;
      plain.near_origin_starts = 0;
      plain.guided_start = false;
      plain.polish_max_dim = 0;
      plain.ascent.max_evaluations = 50 * static_cast<int>(n);
      const WsResult ours = estimate_word_sensitivity(*model, X, defaults, 6, task);
      // The plain start is a random sphere point of another task's stream: independent of ours.
      const WsResult reference = estimate_word_sensitivity(*model, X, plain, 6, task + 1000);
      EXPECT_GE(ours.S, reference.S) << name << " task " << task;
    }
  }
}

}  // namespace
}  // namespace wordsens
