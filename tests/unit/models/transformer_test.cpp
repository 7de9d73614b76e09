// The transformer family (models/transformer/transformer.hpp): mhraf, block, and the attention
// models under a causal mask, against the definitions written here with plain loops.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "core/errors.hpp"
#include "model_cases.hpp"
#include "models/attention/attention.hpp"
#include "models/attention/value_attention.hpp"
#include "models/transformer/transformer.hpp"

namespace wordsens {
namespace {

// block's MLP at its default width 4d unless `width` says otherwise.
ModelSpec spec_of(ModelKind kind, Index n, Index d, Index heads = 1,
                  AttentionMask mask = AttentionMask::none,
                  Activation activation = Activation::relu, Index width = 0) {
  const Index k = kind != ModelKind::block ? 0 : width > 0 ? width : kBlockWidthFactor * d;
  ModelSpec spec{kind, n, d, k, 1, activation};
  spec.heads = heads;
  spec.mask = mask;
  return spec;
}

std::map<std::string, Matrix> weights_of(const FeatureMap& model) {
  std::map<std::string, Matrix> out;
  for (auto& w : model.stored_weights(std::numeric_limits<Index>::max())) out[w.name] = w.values;
  return out;
}

// The definition, one entry at a time: no shared code with transformer_layer.cpp but Eigen's
// storage.
Matrix layer_norm_plain(const Matrix& X) {
  Matrix U(X.rows(), X.cols());
  for (Index r = 0; r < X.rows(); ++r) {
    double mean = 0, var = 0;
    for (Index c = 0; c < X.cols(); ++c) mean += X(r, c);
    mean /= static_cast<double>(X.cols());
    for (Index c = 0; c < X.cols(); ++c) var += (X(r, c) - mean) * (X(r, c) - mean);
    var /= static_cast<double>(X.cols());
    for (Index c = 0; c < X.cols(); ++c) U(r, c) = (X(r, c) - mean) / std::sqrt(var + 1e-5);
  }
  return U;
}

Matrix product_plain(const Matrix& A, const Matrix& B) {
  Matrix C = Matrix::Zero(A.rows(), B.cols());
  for (Index i = 0; i < A.rows(); ++i)
    for (Index j = 0; j < B.cols(); ++j)
      for (Index l = 0; l < A.cols(); ++l) C(i, j) += A(i, l) * B(l, j);
  return C;
}

/// φ(X) of mhraf (block = false) or block from the stored WQ, WK, WV, WO (W1, W2).
Matrix transformer_plain(const Matrix& X, std::map<std::string, Matrix> w, Index heads, bool causal,
                         bool block, Activation activation) {
  const Index n = X.rows(), d = X.cols(), dh = d / heads;
  const Matrix U = block ? layer_norm_plain(X) : X;
  const Matrix Q = product_plain(U, w["WQ"]), K = product_plain(U, w["WK"]),
               V = product_plain(U, w["WV"]);
  Matrix Y = Matrix::Zero(n, d);
  for (Index h = 0; h < heads; ++h) {
    for (Index j = 0; j < n; ++j) {
      const Index last = causal ? j : n - 1;
      std::vector<double> s(static_cast<std::size_t>(last + 1));
      double top = -std::numeric_limits<double>::infinity();
      for (Index l = 0; l <= last; ++l) {
        double dot = 0;
        for (Index c = h * dh; c < (h + 1) * dh; ++c) dot += Q(j, c) * K(l, c);
        s[static_cast<std::size_t>(l)] = dot / std::sqrt(static_cast<double>(dh));
        top = std::max(top, s[static_cast<std::size_t>(l)]);
      }
      double total = 0;
      for (double& v : s) total += (v = std::exp(v - top));
      for (Index l = 0; l <= last; ++l) {
        for (Index c = h * dh; c < (h + 1) * dh; ++c) {
          Y(j, c) += s[static_cast<std::size_t>(l)] / total * V(l, c);
        }
      }
    }
  }
  Matrix H1 = product_plain(Y, w["WO"]);
  if (!block) return H1;
  H1 += X;
  Matrix P = product_plain(layer_norm_plain(H1), w["W1"]);
  for (Index i = 0; i < P.size(); ++i) {
    const double z = P.data()[i];
    P.data()[i] = activation == Activation::relu   ? std::max(z, 0.0)
                  : activation == Activation::tanh ? std::tanh(z)
                                                   : 0.5 * z * (1.0 + std::erf(z / std::sqrt(2.0)));
  }
  return H1 + product_plain(P, w["W2"]);
}

TEST(Transformer, FeaturesAreTheDefinitionWithTheStoredWeights) {
  const Index n = 6, d = 8;
  const Matrix X = testing::test_sample(n, d);
  for (const ModelKind kind : {ModelKind::mhraf, ModelKind::block}) {
    for (const Index heads : {Index{1}, Index{2}, Index{4}}) {
      for (const AttentionMask mask : {AttentionMask::none, AttentionMask::causal}) {
        for (const Activation act : {Activation::relu, Activation::tanh, Activation::gelu}) {
          const auto model = make_feature_map(spec_of(kind, n, d, heads, mask, act), {5, 9});
          const Matrix expected =
              transformer_plain(X, weights_of(*model), heads, mask == AttentionMask::causal,
                                kind == ModelKind::block, act);
          const Vector phi = model->features(X);
          EXPECT_LT((phi - vec(expected)).norm(), 1e-12 * expected.norm())
              << to_string(kind) << " heads " << heads;
        }
      }
    }
  }
}

// The block's MLP is as wide as its spec's k (the task's width, from mlp-width): W1 is d × k,
// W2 k × d scaled by c/k, and φ is the definition at each width. The attention's matrices are
// the same at every width (roles keep their matrix), so widths differ in the MLP only.
TEST(Transformer, TheBlocksMlpIsAsWideAsItsK) {
  const Index n = 5, d = 8;
  const Matrix X = testing::test_sample(n, d);
  const WeightKey key{2, 7};
  std::map<Index, Vector> features;
  for (const Index k : {Index{1}, Index{3}, Index{8}, Index{32}, Index{100}}) {
    const auto model = make_feature_map(
        spec_of(ModelKind::block, n, d, 2, AttentionMask::none, Activation::relu, k), key);
    const auto w = weights_of(*model);
    EXPECT_EQ(w.at("W1").rows(), d);
    EXPECT_EQ(w.at("W1").cols(), k);
    EXPECT_EQ(w.at("W2").rows(), k);
    EXPECT_EQ(w.at("W2").cols(), d);
    // Entries of W2 have variance 2/k (ReLU's gain): their mean square is of that order.
    if (k >= 32) {
      const double mean_square = w.at("W2").squaredNorm() / static_cast<double>(k * d);
      EXPECT_NEAR(mean_square * static_cast<double>(k) / 2.0, 1.0, 0.3) << k;
    }
    const Matrix expected = transformer_plain(X, w, 2, false, true, Activation::relu);
    features[k] = model->features(X);
    EXPECT_LT((features[k] - vec(expected)).norm(), 1e-12 * expected.norm()) << k;
  }
  EXPECT_GT((features[8] - features[32]).norm(), 1e-3 * features[8].norm());
  // A width of 0 is refused, with its name.
  ModelSpec none = spec_of(ModelKind::block, n, d, 2);
  none.k = 0;
  try {
    (void)make_feature_map(none, key);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("block: k must be >= 1"), std::string::npos) << e.what();
  }
}

// Heads split the same matrices: a role's matrix is the same for any H, and for every model of
// the family (W_V and W_O are raf_v's).
TEST(Transformer, RolesKeepTheirMatrixAcrossHeadsAndModels) {
  const Index n = 5, d = 8;
  const WeightKey key{3, 4};
  const auto one = weights_of(*make_feature_map(spec_of(ModelKind::mhraf, n, d, 1), key));
  const auto four = weights_of(*make_feature_map(spec_of(ModelKind::block, n, d, 4), key));
  const auto raf_v = weights_of(*make_feature_map(spec_of(ModelKind::raf_v, n, d), key));
  for (const char* role : {"WQ", "WK", "WV", "WO"}) EXPECT_EQ(one.at(role), four.at(role)) << role;
  EXPECT_EQ(one.at("WV"), raf_v.at("WV"));
  EXPECT_EQ(one.at("WO"), raf_v.at("WO"));
  EXPECT_EQ(four.at("W1").rows(), d);
  EXPECT_EQ(four.at("W1").cols(), kBlockWidthFactor * d);
}

// The family's path computes the paper's models as well: without a mask, raf, raf_relu and raf_v
// through it equal their own evaluators (to rounding: the products are grouped differently).
TEST(Transformer, WithoutAMaskTheFamilysPathIsRafAndRafV) {
  const Index n = 7, d = 6;
  const WeightKey key{2, 8};
  const Matrix X = testing::test_sample(n, d);
  std::mt19937_64 gen(3);
  for (const ModelKind kind : {ModelKind::raf, ModelKind::raf_relu, ModelKind::raf_v}) {
    const ModelSpec spec = spec_of(kind, n, d);
    const TransformerFeatures ours(spec, key);
    const auto theirs = make_feature_map(spec, key);
    EXPECT_LT((ours.features(X) - theirs->features(X)).norm(), 1e-13 * theirs->features(X).norm());
    for (Index position : {Index{0}, Index{3}}) {
      const auto a = ours.at_position(X, position);
      const auto b = theirs->at_position(X, position);
      const Vector delta = testing::ball_point(gen, d, true);
      const Vector c = testing::gaussian_vector(gen, n * d);
      Vector pa, pb, ga, gb;
      a->features_at(delta, pa);
      b->features_at(delta, pb);
      EXPECT_LT((pa - pb).norm(), 1e-12 * pb.norm()) << to_string(kind);
      a->pullback(c, ga);
      b->pullback(c, gb);
      EXPECT_LT((ga - gb).norm(), 1e-11 * gb.norm()) << to_string(kind);
    }
  }
}

// One head whose queries are W and keys the identity is raf_v: the same scores X W Xᵀ/√d.
TEST(Transformer, OneHeadWithIdentityKeysIsRafV) {
  const Index n = 6, d = 5;
  const WeightKey key{4, 1};
  const auto raf_v = make_feature_map(spec_of(ModelKind::raf_v, n, d), key);
  auto w = weights_of(*raf_v);
  TransformerLayer layer;
  layer.Q = w["W"];
  layer.K = Matrix::Identity(d, d);
  layer.V = w["WV"];
  layer.O = w["WO"];
  const TransformerFeatures mhraf(spec_of(ModelKind::mhraf, n, d), layer);
  const Matrix X = testing::test_sample(n, d);
  EXPECT_LT((mhraf.features(X) - raf_v->features(X)).norm(), 1e-13 * raf_v->features(X).norm());
}

// Under the causal mask word i reaches rows j >= i only: moving it leaves rows 0 … i−1 exactly
// as they were, for every attention model; without the mask every row moves (softmax gives
// every word a positive weight).
TEST(Transformer, CausalMaskKeepsEarlierRowsFixed) {
  const Index n = 6, d = 4;
  const Matrix X = testing::test_sample(n, d);
  std::mt19937_64 gen(9);
  for (const ModelKind kind : {ModelKind::raf, ModelKind::raf_relu, ModelKind::raf_v,
                               ModelKind::mhraf, ModelKind::block}) {
    for (const AttentionMask mask : {AttentionMask::causal, AttentionMask::none}) {
      const Index heads = traits(kind).multi_head ? 2 : 1;
      const auto model = make_feature_map(spec_of(kind, n, d, heads, mask), {6, 2});
      const Vector base = model->features(X);
      for (const Index i : {Index{0}, Index{2}, n - 1}) {
        Matrix Xp = X;
        Xp.row(i) += testing::ball_point(gen, d, true).transpose();
        const Vector moved = model->features(Xp) - base;
        for (Index j = 0; j < n; ++j) {
          const double change = moved.segment(j * d, d).norm();
          if (mask == AttentionMask::causal && j < i) {
            EXPECT_EQ(change, 0.0) << to_string(kind) << " word " << i << " row " << j;
          } else if (kind != ModelKind::raf_relu) {  // a ReLU row may ignore word i
            EXPECT_GT(change, 0.0) << to_string(kind) << " word " << i << " row " << j;
          }
        }
      }
    }
  }
}

TEST(Transformer, HeadsThatDoNotDivideDAreRefused) {
  try {
    (void)make_feature_map(spec_of(ModelKind::mhraf, 4, 6, 4), {1, 1});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mhraf: heads = 4 must divide d = 6"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(model_size_problem(spec_of(ModelKind::block, 4, 6, 4)),
            "block: heads = 4 must divide d = 6");
  EXPECT_EQ(model_size_problem(spec_of(ModelKind::block, 4, 8, 4)), std::nullopt);
  ModelSpec rf{ModelKind::rf, 4, 3, 10, 1, Activation::relu};
  rf.mask = AttentionMask::causal;
  EXPECT_THROW((void)make_feature_map(rf, {1, 1}), InputError);
  rf.mask = AttentionMask::none;
  rf.activation = Activation::gelu;  // not 1-Lipschitz: rf's bound cannot take it
  EXPECT_THROW((void)make_feature_map(rf, {1, 1}), InputError);
}

// Each part keeps a row's norm in expectation, so φ has the scale of its input: block's rows
// (residual, attention, MLP) are about √3 times X's, mhraf's about an attention average's.
TEST(Transformer, BlockKeepsTheScaleOfItsParts) {
  const Index n = 16, d = 64;
  const Matrix X = testing::test_sample(n, d);
  double ratio = 0;
  for (std::uint32_t task = 0; task < 5; ++task) {
    const auto block = make_feature_map(spec_of(ModelKind::block, n, d, 4), {3, task});
    ratio += block->features(X).norm() / vec(X).norm() / 5.0;
  }
  EXPECT_GT(ratio, 1.0);
  EXPECT_LT(ratio, 2.5);
}

}  // namespace
}  // namespace wordsens
