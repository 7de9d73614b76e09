// The Δ objectives and the generalization search on the exact toy map (docs/METHOD.md §7).
#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.hpp"
#include "data/synthetic.hpp"
#include "estimators/head_objectives.hpp"
#include "estimators/min_norm_head.hpp"
#include "estimators/trained_head.hpp"
#include "unit/estimators/test_models.hpp"

namespace wordsens {
namespace {

using testing::TanhFeatureMap;

/// Max relative deviation of the analytic gradient from central differences at x.
double gradient_check(const BallObjective& f, const Vector& x, double h = 1e-6) {
  Vector grad(x.size()), scratch(x.size());
  (void)f(x, grad);
  double worst = 0.0;
  for (Index j = 0; j < x.size(); ++j) {
    Vector xp = x, xm = x;
    xp(j) += h;
    xm(j) -= h;
    const double fd = (f(xp, scratch) - f(xm, scratch)) / (2 * h);
    worst = std::max(worst, std::abs(fd - grad(j)) / (std::abs(grad(j)) + 1e-3));
  }
  return worst;
}

TEST(HeadObjectives, LossAndAlignValuesAndGradientsOnToyMap) {
  const Index n = 3, d = 5;
  const TanhFeatureMap model(n, d, 30);
  const Matrix X = synthetic_sample(3, n, d, 0, 0);
  const GaussianMatrix g({Philox(3, Stream::ascent_starts), 0, 0}, 1.0);
  const Vector theta = g.row_segment(0, 0, 30);
  const Vector u = g.row_segment(1, 0, 30);
  const ReadoutTarget loss = loss_target(theta, -1.0);
  const ReadoutTarget align = align_target(u);
  EXPECT_DOUBLE_EQ(align.target, -1.0);
  EXPECT_NEAR(align.v.dot(u), 1.0, 1e-14);
  for (Index i = 0; i < n; ++i) {
    auto ev = model.at_position(X, i);
    const Vector delta = 0.7 * g.row_segment(10 + i, 0, d);
    Matrix changed = X;
    changed.row(i) += delta.transpose();
    const Vector phi = model.features(changed);
    Vector grad;
    const BallObjective f_loss = readout_objective(*ev, loss);
    EXPECT_NEAR(f_loss(delta, grad), std::pow(phi.dot(theta) + 1.0, 2), 1e-10);
    EXPECT_LT(gradient_check(f_loss, delta), 1e-5);
    const BallObjective f_align = readout_objective(*ev, align);
    EXPECT_NEAR(f_align(delta, grad), std::pow(phi.dot(u) / u.squaredNorm() + 1.0, 2), 1e-10);
    EXPECT_LT(gradient_check(f_align, delta), 1e-5);
  }
  EXPECT_THROW((void)align_target(Vector::Zero(4)), std::runtime_error);
}

TEST(HeadObjectives, ParsersRoundTripAndRejectUnknownNames) {
  for (const auto t : {Training::finetune, Training::retrain}) {
    EXPECT_EQ(parse_training(to_string(t)), t);
  }
  for (const auto o : {HeadObjective::loss, HeadObjective::align}) {
    EXPECT_EQ(parse_objective(to_string(o)), o);
  }
  EXPECT_THROW((void)parse_training("fine-tune"), InputError);
  EXPECT_THROW((void)parse_objective("l2"), InputError);
}

TEST(SyntheticGenProblem, TestIsSampleZeroTrainingIsOneToNLabelsAreSigns) {
  const GenProblem pr = synthetic_gen_problem(11, 4, 3, 6, 2);
  const Vector w = synthetic_label_direction(11, 4, 3, 2);
  EXPECT_EQ(pr.test, synthetic_sample(11, 4, 3, 2, 0));
  EXPECT_EQ(pr.test_label, synthetic_label(pr.test, w));
  ASSERT_EQ(pr.train.size(), 6u);
  ASSERT_EQ(pr.train_labels.size(), 6);
  for (Index m = 0; m < 6; ++m) {
    EXPECT_EQ(pr.train[static_cast<std::size_t>(m)],
              synthetic_sample(11, 4, 3, 2, static_cast<std::uint32_t>(m + 1)));
    EXPECT_EQ(std::abs(pr.train_labels(m)), 1.0);
    EXPECT_EQ(pr.train_labels(m), synthetic_label(pr.train[static_cast<std::size_t>(m)], w));
  }
  EXPECT_THROW((void)synthetic_gen_problem(11, 4, 3, 0, 2), std::invalid_argument);
}

TEST(EvaluateGeneralization, ToyMapAllCombinationsAreConsistentAndReproducible) {
  const Index n = 4, d = 6, N = 12, p = 40;
  const TanhFeatureMap model(n, d, p);
  const GenProblem pr = synthetic_gen_problem(8, n, d, N, 1);
  GenOptions options;
  options.objectives = {HeadObjective::loss, HeadObjective::align};
  const auto results = evaluate_generalization(model, pr, options, 8, 3);
  ASSERT_EQ(results.size(), 4u);
  const double y = pr.test_label;
  const HeadVectors h =
      fit_heads(model, pr.train, pr.train_labels, pr.test, y, {.finetune = true, .retrain = true});
  const Training order_t[] = {Training::finetune, Training::finetune, Training::retrain,
                              Training::retrain};
  const HeadObjective order_o[] = {HeadObjective::loss, HeadObjective::align, HeadObjective::loss,
                                   HeadObjective::align};
  for (std::size_t r = 0; r < results.size(); ++r) {
    const GenResult& g = results[r];
    EXPECT_EQ(g.training, order_t[r]);
    EXPECT_EQ(g.objective, order_o[r]);
    EXPECT_NEAR(g.t1, y, 1e-8);
    EXPECT_NEAR(g.t0, h.phi_x.dot(h.theta_star), 1e-12);
    EXPECT_DOUBLE_EQ(g.E, (g.D1 + y) * (g.D1 + y));
    EXPECT_GE(g.position, 0);
    EXPECT_LT(g.position, n);
    EXPECT_LE(g.delta.norm(), std::sqrt(double(d)) * (1 + 1e-12));
    EXPECT_GT(g.evaluations, 0);
    EXPECT_EQ(g.cond_K, h.cond_K);
    // D0, D1 are the heads' read-outs at the reported witness, recomputed from scratch.
    Matrix changed = pr.test;
    changed.row(g.position) += g.delta.transpose();
    const Vector phi = model.features(changed);
    const Vector& theta = g.training == Training::finetune ? h.theta_finetune : h.theta_retrain;
    EXPECT_NEAR(g.D0, phi.dot(h.theta_star), 1e-10);
    EXPECT_NEAR(g.D1, phi.dot(theta), 1e-10);
  }
  // The loss search minimises E itself: it cannot lose to the align search's witness by much
  // (both are local searches from the same starts; allow slack but catch a sign error).
  // Δ = 0 gives D1 = y and E = 4: the search must find better (the toy map is smooth and
  // small, the head's read-out moves by O(1) over the ball).
  EXPECT_LT(results[0].E, 3.0);
  EXPECT_LT(results[2].E, 3.0);
  for (const GenResult& g : results) EXPECT_GT(g.delta.norm(), 0.1);

  const auto again = evaluate_generalization(model, pr, options, 8, 3);
  for (std::size_t r = 0; r < results.size(); ++r) {
    EXPECT_EQ(again[r].D1, results[r].D1);
    EXPECT_EQ(again[r].delta, results[r].delta);
    EXPECT_EQ(again[r].position, results[r].position);
  }
}

TEST(EvaluateGeneralization, ErrorsPropagateFromTheHead) {
  const TanhFeatureMap model(2, 3, 6);
  const GenProblem pr = synthetic_gen_problem(8, 2, 3, 6, 0);
  EXPECT_THROW((void)evaluate_generalization(model, pr, GenOptions{}, 8, 0), std::invalid_argument);
}

}  // namespace
}  // namespace wordsens
