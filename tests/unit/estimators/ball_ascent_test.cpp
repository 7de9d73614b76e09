#include "estimators/ball_ascent.hpp"

#include <gtest/gtest.h>

#include <Eigen/QR>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/gaussian.hpp"

namespace wordsens {
namespace {

Vector random_vector(Index size, std::uint32_t row, double scale = 1.0) {
  return GaussianMatrix({Philox(99, Stream::ascent_starts), 1234, 0}, scale)
      .row_segment(row, 0, size);
}

/// Records every point the optimiser evaluates, to check "best seen" and "inside the ball".
struct Recorder {
  BallObjective inner;
  std::vector<Vector> points;
  std::vector<double> values;
  BallObjective objective() {
    return [this](const Vector& x, Vector& grad) {
      const double v = inner(x, grad);
      points.push_back(x);
      values.push_back(v);
      return v;
    };
  }
};

TEST(BallAscent, LinearObjectiveReachesTheBoundaryAlongTheGradient) {
  for (const Index dim : {2, 7, 64}) {
    const Vector a = random_vector(dim, 0);
    const double radius = 3.0;
    const BallObjective f = [&a](const Vector& x, Vector& grad) {
      grad = a;
      return a.dot(x);
    };
    const AscentResult r = maximise_on_ball(f, radius, random_vector(dim, 1, 0.1), {});
    EXPECT_NEAR(r.value, radius * a.norm(), 1e-9 * radius * a.norm()) << "dim " << dim;
    EXPECT_LT((r.argmax - radius * a.normalized()).norm(), 1e-6 * radius) << "dim " << dim;
    EXPECT_LE(r.argmax.norm(), radius * (1 + 1e-12));
  }
}

TEST(BallAscent, QuadraticFindsTheTopEigenvectorOnTheSphere) {
  const Index dim = 12;
  const double radius = 2.0;
  // A = Q diag(λ) Qᵀ with a clear top eigenvalue and some negative ones.
  const Matrix Q =
      Eigen::HouseholderQR<Matrix>(
          GaussianMatrix({Philox(5, Stream::weights), 1, 0}, 1.0).window(0, 0, dim, dim))
          .householderQ();
  Vector lambda(dim);
  for (Index j = 0; j < dim; ++j) lambda(j) = 2.0 - 0.3 * static_cast<double>(j);
  const Matrix A = Q * lambda.asDiagonal() * Q.transpose();
  const BallObjective f = [&A](const Vector& x, Vector& grad) {
    grad = 2.0 * A * x;
    return x.dot(A * x);
  };
  AscentOptions options;
  options.max_evaluations = 2000;
  options.relative_tolerance = 1e-12;
  for (std::uint32_t s = 0; s < 5; ++s) {
    const AscentResult r = maximise_on_ball(f, radius, random_vector(dim, 10 + s), options);
    const double optimum = lambda(0) * radius * radius;
    EXPECT_NEAR(r.value, optimum, 1e-6 * optimum) << "start " << s;
    EXPECT_NEAR(std::abs(r.argmax.dot(Q.col(0))), radius, 1e-3) << "start " << s;
  }
}

TEST(BallAscent, InteriorAndExteriorMaximaOfAConcaveFunction) {
  const Index dim = 5;
  const double radius = 1.5;
  const Vector direction = random_vector(dim, 20).normalized();
  for (const double distance : {0.7, 4.0}) {
    const Vector c = distance * direction;
    const BallObjective f = [&c](const Vector& x, Vector& grad) {
      grad = -2.0 * (x - c);
      return -(x - c).squaredNorm();
    };
    AscentOptions options;
    options.max_evaluations = 1000;
    options.relative_tolerance = 1e-14;
    const AscentResult r = maximise_on_ball(f, radius, random_vector(dim, 21), options);
    const Vector expected = distance <= radius ? c : Vector(radius * direction);
    EXPECT_LT((r.argmax - expected).norm(), 1e-5) << "distance " << distance;
  }
}

TEST(BallAscent, ReturnsTheBestPointSeenInsideTheBallWithinTheBudget) {
  const Index dim = 6;
  const double radius = 2.0;
  // A bumpy objective: many local maxima, so the iterates wander.
  const Vector w = random_vector(dim, 30, 3.0);
  Recorder rec;
  rec.inner = [&w](const Vector& x, Vector& grad) {
    const double s = std::sin(w.dot(x));
    grad = w * std::cos(w.dot(x)) + 0.2 * x;
    return s + 0.1 * x.squaredNorm();
  };
  AscentOptions options;
  options.max_evaluations = 40;
  const Vector start = random_vector(dim, 31, 5.0);  // outside: must be projected first
  const AscentResult r = maximise_on_ball(rec.objective(), radius, start, options);
  ASSERT_FALSE(rec.values.empty());
  EXPECT_EQ(static_cast<long>(rec.values.size()), r.evaluations);
  EXPECT_LE(r.evaluations, options.max_evaluations);
  double best = rec.values[0];
  Vector best_point = rec.points[0];
  for (std::size_t j = 0; j < rec.values.size(); ++j) {
    EXPECT_LE(rec.points[j].norm(), radius * (1 + 1e-12)) << "evaluation " << j;
    if (rec.values[j] > best) {
      best = rec.values[j];
      best_point = rec.points[j];
    }
  }
  EXPECT_EQ(r.value, best);
  EXPECT_EQ(r.argmax, best_point);
  EXPECT_GE(r.value, rec.values[0]);
}

TEST(BallAscent, ZeroGradientStartIsReturnedUnchanged) {
  const BallObjective f = [](const Vector& x, Vector& grad) {
    grad = 2.0 * x;
    return x.squaredNorm();
  };
  const AscentResult r = maximise_on_ball(f, 1.0, Vector::Zero(4), {});
  EXPECT_EQ(r.evaluations, 1);
  EXPECT_EQ(r.value, 0.0);
  // Any non-zero start escapes to the sphere.
  const AscentResult moved = maximise_on_ball(f, 1.0, random_vector(4, 40, 1e-3), {});
  EXPECT_NEAR(moved.value, 1.0, 1e-9);
}

TEST(BallAscent, MinimiseReportsTheUnnegatedValue) {
  const Vector a = random_vector(9, 50);
  const BallObjective f = [&a](const Vector& x, Vector& grad) {
    grad = a;
    return a.dot(x);
  };
  const AscentResult r = minimise_on_ball(f, 2.0, random_vector(9, 51, 0.1), {});
  EXPECT_NEAR(r.value, -2.0 * a.norm(), 1e-9 * a.norm());
  EXPECT_LT((r.argmax + 2.0 * a.normalized()).norm(), 1e-6);
}

TEST(BallAscent, RejectsBadArguments) {
  const BallObjective f = [](const Vector& x, Vector& grad) {
    grad = x;
    return 0.5 * x.squaredNorm();
  };
  AscentOptions bad;
  bad.max_evaluations = 0;
  EXPECT_THROW((void)maximise_on_ball(f, 1.0, Vector::Ones(2), bad), std::invalid_argument);
  EXPECT_THROW((void)maximise_on_ball(f, -1.0, Vector::Ones(2), {}), std::invalid_argument);
}

TEST(BallAscent, PatternSearchClimbsOntoAKinkWhereGradientsDisagree) {
  // f = −|x0 − 0.3| − 2|x1 + 0.2|: the maximum sits on two kinks at once.
  const BallValue f = [](const Vector& x) {
    return -std::abs(x(0) - 0.3) - 2.0 * std::abs(x(1) + 0.2);
  };
  Vector start(2);
  start << -0.5, 0.6;
  const AscentResult r = pattern_search_on_ball(f, 1.0, start, f(start), 0.1, 1e-12, 10000);
  EXPECT_NEAR(r.argmax(0), 0.3, 1e-9);
  EXPECT_NEAR(r.argmax(1), -0.2, 1e-9);
  EXPECT_EQ(r.value, f(r.argmax));
  // The same on the boundary: the constrained maximum of −|x0 − 2| on the unit disc is (1, 0).
  const BallValue g = [](const Vector& x) { return -std::abs(x(0) - 2.0) - std::abs(x(1)); };
  const AscentResult b = pattern_search_on_ball(g, 1.0, start, g(start), 0.1, 1e-12, 10000);
  EXPECT_NEAR(b.argmax(0), 1.0, 1e-6);
  EXPECT_LE(b.argmax.norm(), 1.0 + 1e-12);
  EXPECT_LE(b.evaluations, 10000);
}

TEST(BallAscent, ProjectOntoBall) {
  Vector inside = Vector::Constant(4, 0.1);
  const Vector copy = inside;
  project_onto_ball(inside, 1.0);
  EXPECT_EQ(inside, copy);
  Vector outside = Vector::Constant(4, 3.0);
  project_onto_ball(outside, 2.0);
  EXPECT_NEAR(outside.norm(), 2.0, 1e-14);
  EXPECT_NEAR(outside(0), 1.0, 1e-14);
}

// The lockstep driver (the WS search's) takes, for each start, exactly the steps of a lone
// ascent: same argmax, value, evaluation count and budget flag, bitwise. The objective has many
// local maxima and a kink, so the ascents stop at different rounds by different rules.
// The product of balls (several changed words): each block in its own ball, and the optimum of
// a linear objective is every block on its sphere along its own part of the gradient; a block
// as wide as x is the one ball, bit for bit.
TEST(BallAscent, ProductOfBallsProjectsBlockByBlock) {
  Vector x(6);
  x << 3.0, 4.0, 0.1, 0.2, -6.0, 8.0;
  project_onto_balls(x, 2.0, 2);
  EXPECT_NEAR(x.segment(0, 2).norm(), 2.0, 1e-15);
  EXPECT_EQ(x(2), 0.1);  // inside: unchanged
  EXPECT_EQ(x(3), 0.2);
  EXPECT_NEAR(x.segment(4, 2).norm(), 2.0, 1e-15);
  EXPECT_THROW(project_onto_balls(x, 2.0, 4), std::invalid_argument);

  const Vector c = random_vector(6, 3);
  const BallObjective linear = [&c](const Vector& y, Vector& grad) {
    grad = c;
    return c.dot(y);
  };
  AscentOptions options;
  options.ball_block = 2;
  options.relative_tolerance = 1e-13;
  options.max_evaluations = 3000;
  const AscentResult r = maximise_on_ball(linear, 1.5, random_vector(6, 4, 0.1), options);
  for (Index b = 0; b < 3; ++b) {
    const Vector expected = 1.5 * c.segment(2 * b, 2).normalized();
    EXPECT_LT((r.argmax.segment(2 * b, 2) - expected).norm(), 1e-5) << "block " << b;
  }
  AscentOptions whole = options;
  whole.ball_block = 6;
  AscentOptions none = options;
  none.ball_block = 0;
  const AscentResult a = maximise_on_ball(linear, 1.5, random_vector(6, 4, 0.1), whole);
  const AscentResult o = maximise_on_ball(linear, 1.5, random_vector(6, 4, 0.1), none);
  EXPECT_EQ(a.value, o.value);
  EXPECT_EQ(a.evaluations, o.evaluations);
  EXPECT_TRUE(a.argmax == o.argmax);
}

TEST(BallAscent, LockstepAscentsEqualLoneAscents) {
  const Index dim = 6;
  const Vector a = random_vector(dim, 60);
  const BallObjective f = [&a](const Vector& x, Vector& grad) {
    const Vector s = (3.0 * x).array().sin().matrix();
    grad = 3.0 * (3.0 * x).array().cos().matrix() + 0.5 * a * (a.dot(x) > 0.0 ? 1.0 : -1.0);
    return s.sum() + 0.5 * std::abs(a.dot(x));
  };
  int calls = 0;
  Index widest = 0;
  std::vector<std::size_t> seen;  // the ascents named in the latest call
  const BallBatchObjective batch = [&](const Matrix& xs, std::span<const std::size_t> ascents,
                                       Vector& values, Matrix& grads) {
    ++calls;
    EXPECT_EQ(static_cast<Index>(ascents.size()), xs.cols());
    seen.assign(ascents.begin(), ascents.end());
    widest = std::max(widest, xs.cols());
    values.resize(xs.cols());
    grads.resize(xs.rows(), xs.cols());
    Vector x(xs.rows()), g(xs.rows());
    for (Index c = 0; c < xs.cols(); ++c) {
      x = xs.col(c);
      values(c) = f(x, g);
      grads.col(c) = g;
    }
  };
  for (const int budget : {5, 40, 300}) {
    AscentOptions options;
    options.max_evaluations = budget;
    std::vector<Vector> starts;
    for (std::uint32_t s = 0; s < 12; ++s) starts.push_back(random_vector(dim, 70 + s, 0.7));
    calls = 0;
    const auto together = maximise_on_ball_lockstep(batch, 2.0, starts, options);
    ASSERT_EQ(together.size(), starts.size());
    EXPECT_EQ(widest, 12);
    long most = 0;
    for (std::size_t s = 0; s < starts.size(); ++s) {
      const AscentResult alone = maximise_on_ball(f, 2.0, starts[s], options);
      EXPECT_EQ(together[s].value, alone.value) << "start " << s;
      EXPECT_EQ(together[s].evaluations, alone.evaluations) << "start " << s;
      EXPECT_EQ(together[s].at_budget, alone.at_budget) << "start " << s;
      EXPECT_TRUE(together[s].argmax == alone.argmax) << "start " << s;
      most = std::max(most, alone.evaluations);
    }
    EXPECT_EQ(calls, most) << "one call per round, as many rounds as the longest ascent";
  }
  EXPECT_TRUE(maximise_on_ball_lockstep(batch, 1.0, {}, {}).empty());
}

// A pause changes nothing: ascents advanced to 7, then 19, then the budget take the steps of one
// advance to the budget, and a paused ascent is not done (the race lets some of them go on).
TEST(BallAscent, AdvancingInStagesEqualsOneAdvance) {
  const Index dim = 5;
  const Vector a = random_vector(dim, 80);
  const BallBatchObjective batch = [&a](const Matrix& xs, std::span<const std::size_t>,
                                        Vector& values, Matrix& grads) {
    values.resize(xs.cols());
    grads.resize(xs.rows(), xs.cols());
    for (Index c = 0; c < xs.cols(); ++c) {
      const Vector x = xs.col(c);
      values(c) = (2.0 * x).array().cos().sum() + a.dot(x);
      grads.col(c) = -2.0 * (2.0 * x).array().sin().matrix() + a;
    }
  };
  AscentOptions options;
  options.max_evaluations = 60;
  std::vector<Vector> starts;
  for (std::uint32_t s = 0; s < 9; ++s) starts.push_back(random_vector(dim, 90 + s, 0.8));
  const auto once = maximise_on_ball_lockstep(batch, 1.5, starts, options);
  std::vector<AscentState> staged;
  for (const Vector& start : starts) staged.emplace_back(start);
  advance_in_lockstep(batch, 1.5, staged, options, 7);
  int paused = 0;
  for (const AscentState& s : staged) {
    EXPECT_LE(s.result.evaluations, 7);
    paused += s.done ? 0 : 1;
  }
  EXPECT_GT(paused, 0) << "some ascents must still be climbing at 7 evaluations";
  advance_in_lockstep(batch, 1.5, staged, options, 19);
  advance_in_lockstep(batch, 1.5, staged, options, options.max_evaluations);
  for (std::size_t s = 0; s < starts.size(); ++s) {
    EXPECT_TRUE(staged[s].done) << "start " << s;
    EXPECT_EQ(staged[s].result.value, once[s].value) << "start " << s;
    EXPECT_EQ(staged[s].result.evaluations, once[s].evaluations) << "start " << s;
    EXPECT_EQ(staged[s].result.at_budget, once[s].at_budget) << "start " << s;
    EXPECT_TRUE(staged[s].result.argmax == once[s].argmax) << "start " << s;
  }
  EXPECT_THROW(advance_in_lockstep(batch, 1.5, staged, options, 0), std::invalid_argument);
}

}  // namespace
}  // namespace wordsens
