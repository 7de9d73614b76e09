#include "estimators/head_objectives.hpp"

#include <memory>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace wordsens {

ReadoutTarget loss_target(const Vector& theta, double changed_label) {
  return {theta, changed_label};
}

ReadoutTarget align_target(const Vector& u) {
  const double norm2 = u.squaredNorm();
  if (!(norm2 > 0.0)) {
    throw std::runtime_error("align objective: u is zero (φ(X) lies in the span of the rows of Φ)");
  }
  return {u / norm2, -1.0};
}

BallObjective readout_objective(PositionEvaluator& evaluator, const ReadoutTarget& readout) {
  // The feature buffer is shared by the calls (one optimiser at a time uses it).
  auto features = std::make_shared<Vector>(readout.v.size());
  return [&evaluator, &readout, features](const Vector& delta, Vector& grad) {
    evaluator.features_at(delta, *features);
    const double residual = features->dot(readout.v) - readout.target;
    evaluator.pullback(readout.v, grad);
    grad *= 2.0 * residual;
    return residual * residual;
  };
}

BallBatchObjective readout_objectives(PositionEvaluator& evaluator,
                                      std::vector<const ReadoutTarget*> readouts) {
  // The column buffer is shared by the calls (one lockstep at a time uses it).
  auto columns = std::make_shared<std::vector<const Vector*>>();
  return [&evaluator, readouts = std::move(readouts), columns](const Matrix& deltas,
                                                               std::span<const std::size_t> ascents,
                                                               Vector& values, Matrix& grads) {
    columns->clear();
    for (const std::size_t a : ascents) columns->push_back(&readouts[a]->v);
    evaluator.linear_readouts(deltas, *columns, values, &grads);
    for (std::size_t b = 0; b < ascents.size(); ++b) {
      const auto col = static_cast<Index>(b);
      const double residual = values(col) - readouts[ascents[b]]->target;
      grads.col(col) *= 2.0 * residual;
      values(col) = residual * residual;
    }
  };
}

}  // namespace wordsens
