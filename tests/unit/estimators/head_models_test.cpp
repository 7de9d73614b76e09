// The head on every real model: kernel form against the dense pseudo-inverse (rf streams its
// Gram and Φᵀ C), and the loss / align gradients against finite differences.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/gaussian.hpp"
#include "data/synthetic.hpp"
#include "estimators/head_objectives.hpp"
#include "estimators/min_norm_head.hpp"
#include "estimators/trained_head.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens {
namespace {

class HeadOnModel : public ::testing::TestWithParam<std::string> {
 protected:
  static constexpr Index n = 4, d = 5, k = 40;
  std::unique_ptr<FeatureMap> make(std::uint32_t task = 2) const {
    ModelSpec spec;
    spec.kind = model_kind(GetParam());
    spec.n = n;
    spec.d = d;
    spec.k = k;
    spec.layers = 2;
    return make_feature_map(spec, {21, task});
  }
};

double relative_error(const Vector& a, const Vector& b) { return (a - b).norm() / b.norm(); }

TEST_P(HeadOnModel, KernelFormEqualsDensePseudoInverse) {
  const auto model = make();
  const Index N = model->feature_dim() / 2;
  const GenProblem pr = synthetic_gen_problem(21, n, d, N, 0);
  const HeadVectors h = fit_heads(*model, pr.train, pr.train_labels, pr.test, pr.test_label,
                                  {.finetune = true, .retrain = true, .retrain_projection = true});
  const Eigen::MatrixXd phi = model->feature_matrix(pr.train);
  const Vector phi_x = model->features(pr.test);
  EXPECT_LT(relative_error(h.phi_x, phi_x), 1e-12);
  EXPECT_LT(relative_error(h.theta_star,
                           phi.completeOrthogonalDecomposition().solve(Vector(pr.train_labels))),
            1e-8);
  Eigen::MatrixXd stacked(N + 1, phi.cols());
  stacked << phi, phi_x.transpose();
  Vector y_ext(N + 1);
  y_ext << pr.train_labels, pr.test_label;
  EXPECT_LT(relative_error(h.theta_retrain, stacked.completeOrthogonalDecomposition().solve(y_ext)),
            1e-8);
  EXPECT_NEAR(phi_x.dot(h.theta_finetune), pr.test_label, 1e-8);
  EXPECT_NEAR(phi_x.dot(h.theta_retrain), pr.test_label, 1e-8);
  EXPECT_LT((phi * h.u_retrain).norm(), 1e-8 * phi.norm() * h.u_retrain.norm());
}

TEST_P(HeadOnModel, LossAndAlignGradientsMatchFiniteDifferences) {
  const auto model = make();
  const Index p = model->feature_dim();
  const Matrix X = synthetic_sample(21, n, d, 3, 0);
  const GaussianMatrix g({Philox(21, Stream::ascent_starts), 77, 0}, 1.0);
  const ReadoutTarget targets[] = {loss_target(g.row_segment(0, 0, p), -1.0),
                                   align_target(g.row_segment(1, 0, p))};
  for (Index i = 0; i < n; ++i) {
    auto ev = model->at_position(X, i);
    const Vector delta = 0.8 * g.row_segment(10 + i, 0, d);
    for (const ReadoutTarget& target : targets) {
      const BallObjective f = readout_objective(*ev, target);
      Vector grad(d), scratch(d);
      const double value = f(delta, grad);
      Matrix changed = X;
      changed.row(i) += delta.transpose();
      const double direct = model->features(changed).dot(target.v) - target.target;
      EXPECT_NEAR(value, direct * direct, 1e-9 * (1 + value));
      const double h = 1e-6;
      for (Index j = 0; j < d; ++j) {
        Vector xp = delta, xm = delta;
        xp(j) += h;
        xm(j) -= h;
        const double fd = (f(xp, scratch) - f(xm, scratch)) / (2 * h);
        EXPECT_NEAR(grad(j), fd, 1e-5 * (1 + std::abs(fd)))
            << GetParam() << " position " << i << " coordinate " << j;
      }
    }
  }
}

TEST_P(HeadOnModel, TrainedHeadsFitTheNewSampleAndWitnessIsInTheBall) {
  const auto model = make(5);
  const GenProblem pr = synthetic_gen_problem(21, n, d, model->feature_dim() / 2, 1);
  GenOptions options;
  options.objectives = {HeadObjective::loss, HeadObjective::align};
  for (const GenResult& r : evaluate_generalization(*model, pr, options, 21, 5)) {
    EXPECT_NEAR(r.t1, pr.test_label, 1e-8) << to_string(r.training);
    EXPECT_LE(r.delta.norm(), std::sqrt(double(d)) * (1 + 1e-12));
    EXPECT_TRUE(std::isfinite(r.E) && std::isfinite(r.D0) && r.cond_K >= 1.0);
  }
}

// The searches of every (training, objective) pair climb in lockstep from all starts of a
// position; each must end where its start climbed alone ends (minimise_on_ball on the
// single-point read-out objective), with the best over starts and positions chosen by the same
// rule (strictly better, so ties keep the earlier start). Models that evaluate the points one by
// one give the same bits; rf's fused read-outs round differently in the last bits.
TEST_P(HeadOnModel, LockstepSearchesEndWhereEachStartClimbedAloneEnds) {
  constexpr std::uint32_t kSeed = 21, kTask = 6;
  const auto model = make(kTask);
  const GenProblem pr = synthetic_gen_problem(kSeed, n, d, model->feature_dim() / 2, 2);
  GenOptions options;
  options.objectives = {HeadObjective::loss, HeadObjective::align};
  options.sphere_starts = 2;
  const std::vector<GenResult> results = evaluate_generalization(*model, pr, options, kSeed, kTask);
  ASSERT_EQ(results.size(), 4u);
  const HeadVectors h = fit_heads(*model, pr.train, pr.train_labels, pr.test, pr.test_label,
                                  {.finetune = true, .retrain = true, .retrain_projection = true});
  const bool same_bits = GetParam() != "rf";
  const double radius = std::sqrt(static_cast<double>(d));
  std::size_t r = 0;
  for (const Training t : options.trainings) {
    const Vector& theta = t == Training::finetune ? h.theta_finetune : h.theta_retrain;
    for (const HeadObjective o : options.objectives) {
      const ReadoutTarget target =
          o == HeadObjective::loss ? loss_target(theta, -pr.test_label)
                                   : align_target(t == Training::finetune ? h.phi_x : h.u_retrain);
      double best = std::numeric_limits<double>::infinity();
      Index best_position = 0;
      Vector best_delta = Vector::Zero(d);
      long evaluations = 0;
      for (const Index i : options.positions.resolve(n, kSeed, kTask)) {
        const auto evaluator = model->at_position(pr.test, i);
        const BallObjective f = readout_objective(*evaluator, target);
        const auto starts = gen_starting_points(*model, pr.test, i, options, kSeed, kTask);
        ASSERT_GE(starts.size(), 3u);
        for (const Vector& start : starts) {
          const AscentResult alone = minimise_on_ball(f, radius, start, options.ascent);
          evaluations += alone.evaluations;
          if (alone.value < best) {
            best = alone.value;
            best_position = i;
            best_delta = alone.argmax;
          }
        }
      }
      const GenResult& g = results[r++];
      const std::string label = to_string(t) + "/" + to_string(o);
      EXPECT_EQ(g.position, best_position) << label;
      EXPECT_EQ(g.evaluations, evaluations) << label;
      if (same_bits) {
        EXPECT_EQ(g.delta, best_delta) << label;
      } else {
        EXPECT_LE((g.delta - best_delta).norm(), 1e-8 * radius) << label;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, HeadOnModel, ::testing::Values("rf", "drf", "raf", "raf_relu"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace wordsens
