#pragma once
// Shared fixtures of the model tests: one small instance of every model variant, a sample, and
// deterministic random vectors (std::mt19937, never Eigen's Random()).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "data/synthetic.hpp"
#include "models/shared/feature_map.hpp"
#include "models/shared/model_kind.hpp"
#include "unit/models/test_encoder.hpp"

namespace wordsens::testing {

struct ModelCase {
  std::string label;
  ModelSpec spec;
};

inline std::vector<ModelCase> all_model_cases(Index n = 7, Index d = 5, Index k = 40) {
  std::vector<ModelCase> cases;
  cases.push_back({"rf_relu", {ModelKind::rf, n, d, k, 1, Activation::relu}});
  cases.push_back({"rf_tanh", {ModelKind::rf, n, d, k, 1, Activation::tanh}});
  for (int L = 1; L <= 3; ++L) {
    cases.push_back({"drf_L" + std::to_string(L), {ModelKind::drf, n, d, k, L, Activation::relu}});
  }
  cases.push_back({"drf_L2_tanh", {ModelKind::drf, n, d, k, 2, Activation::tanh}});
  cases.push_back({"raf", {ModelKind::raf, n, d, 0, 1, Activation::relu}});
  cases.push_back({"raf_relu", {ModelKind::raf_relu, n, d, 0, 1, Activation::relu}});
  cases.push_back({"raf_v", {ModelKind::raf_v, n, d, 0, 1, Activation::relu}});
  // The transformer family: several heads (d of them, one column each) and one; the causal mask
  // on every attention model.
  const auto with = [](ModelSpec spec, Index heads, AttentionMask mask) {
    spec.heads = heads;
    spec.mask = mask;
    return spec;
  };
  const auto none = AttentionMask::none, causal = AttentionMask::causal;
  cases.push_back({"mhraf", with({ModelKind::mhraf, n, d, 0, 1, Activation::relu}, d, none)});
  cases.push_back({"mhraf_1", with({ModelKind::mhraf, n, d, 0, 1, Activation::relu}, 1, none)});
  // The block's MLP at the default width 4d, and at a width that is no multiple of d.
  const Index mlp = kBlockWidthFactor * d;
  cases.push_back({"block", with({ModelKind::block, n, d, mlp, 1, Activation::relu}, d, none)});
  cases.push_back(
      {"block_tanh_1", with({ModelKind::block, n, d, mlp, 1, Activation::tanh}, 1, none)});
  cases.push_back(
      {"block_gelu", with({ModelKind::block, n, d, mlp, 1, Activation::gelu}, d, none)});
  cases.push_back({"block_k3", with({ModelKind::block, n, d, 3, 1, Activation::relu}, 1, none)});
  for (const ModelKind kind : {ModelKind::raf, ModelKind::raf_relu, ModelKind::raf_v,
                               ModelKind::mhraf, ModelKind::block}) {
    const Index heads = kind == ModelKind::mhraf || kind == ModelKind::block ? d : 1;
    const Index width = kind == ModelKind::block ? mlp : 0;
    cases.push_back({to_string(kind) + "_causal",
                     with({kind, n, d, width, 1, Activation::relu}, heads, causal)});
  }
  // The trained family on a small random encoder layer: d heads of width 1, and one head.
  for (const ModelKind kind : {ModelKind::trained_attn, ModelKind::twin_attn,
                               ModelKind::trained_layer, ModelKind::twin_layer}) {
    for (const Index heads : {d, Index{1}}) {
      cases.push_back({to_string(kind) + "_" + std::to_string(heads),
                       with_test_encoder({kind, n, d, 0, 1, Activation::relu}, heads)});
    }
  }
  return cases;
}

/// Printed by GoogleTest instead of the object's bytes.
inline void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.label; }

/// GoogleTest's parameter name of a case.
inline std::string case_name(const ::testing::TestParamInfo<ModelCase>& param_info) {
  return param_info.param.label;
}

inline Matrix test_sample(Index n, Index d, std::uint32_t trial = 3) {
  return synthetic_sample(99, n, d, trial, 0);
}

inline Vector gaussian_vector(std::mt19937_64& gen, Index size) {
  std::normal_distribution<double> normal;
  Vector v(size);
  for (Index j = 0; j < size; ++j) v(j) = normal(gen);
  return v;
}

/// A point of the ball of radius √d: on the sphere when `boundary`, else at a random radius.
inline Vector ball_point(std::mt19937_64& gen, Index d, bool boundary) {
  Vector v = gaussian_vector(gen, d);
  const double radius = std::sqrt(static_cast<double>(d));
  const double r =
      boundary ? radius : radius * std::uniform_real_distribution<double>(0.05, 0.95)(gen);
  return v * (r / v.norm());
}

inline double relative_difference(const Vector& a, const Vector& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

/// Two-sample Kolmogorov–Smirnov statistic sup_x |F_a(x) − F_b(x)|.
inline double ks_statistic(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::size_t i = 0, j = 0;
  double worst = 0.0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= x) ++i;
    while (j < b.size() && b[j] <= x) ++j;
    worst = std::max(worst, std::abs(static_cast<double>(i) / static_cast<double>(a.size()) -
                                     static_cast<double>(j) / static_cast<double>(b.size())));
  }
  return worst;
}

}  // namespace wordsens::testing
