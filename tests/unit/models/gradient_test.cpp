// Finite-difference checks of the evaluators' analytic pullbacks (docs/METHOD.md §4), for every
// model, at random points inside the ball and on its boundary ‖Δ‖ = √d, for two objectives:
//   f(Δ) = ⟨c, φ(X^i(Δ))⟩ (random cotangent c) and f(Δ) = ‖φ(X^i(Δ)) − φ(X)‖².
#include <gtest/gtest.h>

#include <functional>

#include "model_cases.hpp"

namespace wordsens {
namespace {

using testing::ModelCase;

/// Central differences of f along every coordinate.
Vector central_difference(const std::function<double(const Vector&)>& f, const Vector& x,
                          double h) {
  Vector g(x.size());
  for (Index j = 0; j < x.size(); ++j) {
    Vector xp = x, xm = x;
    xp(j) += h;
    xm(j) -= h;
    g(j) = (f(xp) - f(xm)) / (2 * h);
  }
  return g;
}

class GradientCheck : public ::testing::TestWithParam<ModelCase> {};

TEST_P(GradientCheck, PullbackMatchesCentralDifferences) {
  const ModelSpec spec = GetParam().spec;
  const auto model = make_feature_map(spec, {17, 4});
  const Matrix X = testing::test_sample(spec.n, spec.d);
  std::mt19937_64 gen(2024);
  constexpr double kStep = 1e-5;
  for (Index position : {Index{0}, spec.n / 2, spec.n - 1}) {
    const auto eval = model->at_position(X, position);
    const Vector base = eval->base_features();
    for (int point = 0; point < 6; ++point) {
      const bool boundary = point % 2 == 0;
      const Vector delta = testing::ball_point(gen, spec.d, boundary);
      const Vector c = testing::gaussian_vector(gen, model->feature_dim());
      Vector phi, grad_linear, grad_distance;

      eval->features_at(delta, phi);
      eval->pullback(c, grad_linear);
      eval->features_at(delta, phi);
      eval->pullback(2.0 * (phi - base), grad_distance);

      const auto linear = [&](const Vector& x) {
        Vector out;
        eval->features_at(x, out);
        return c.dot(out);
      };
      const auto distance = [&](const Vector& x) {
        Vector out;
        eval->features_at(x, out);
        return (out - base).squaredNorm();
      };
      const Vector fd_linear = central_difference(linear, delta, kStep);
      const Vector fd_distance = central_difference(distance, delta, kStep);
      EXPECT_LT(testing::relative_difference(grad_linear, fd_linear), 1e-6)
          << GetParam().label << " position " << position << " point " << point;
      EXPECT_LT(testing::relative_difference(grad_distance, fd_distance), 1e-6)
          << GetParam().label << " position " << position << " point " << point;
      EXPECT_GT(grad_distance.norm(), 0.0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, GradientCheck, ::testing::ValuesIn(testing::all_model_cases()),
                         testing::case_name);

}  // namespace
}  // namespace wordsens
