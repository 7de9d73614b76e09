#pragma once
// Projected gradient ascent on the ball ‖x‖ ≤ radius, with an adaptive step and a stopping
// rule on relative progress (docs/METHOD.md §4). Minimisation is ascent on the negated objective.
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "core/types.hpp"

namespace wordsens {

/// value ← f(x), grad ← ∇f(x). Must not keep references to x or grad.
using BallObjective = std::function<double(const Vector& x, Vector& grad)>;

struct AscentOptions {
  int max_evaluations = 300;         // per start
  double relative_tolerance = 1e-7;  // stop when the best value improves by less than this
  int patience = 10;                 // … (relative) over this many consecutive accepted steps
  double initial_step = 0.0;         // distance of the first step along ĝ; 0: radius / 10
  // 0: the feasible set is one ball ‖x‖ ≤ radius. b > 0: x is m = dim / b consecutive blocks
  // of b coordinates, each in its own ball of that radius (the product of balls of m changed
  // words, estimators/multi_word.hpp); b = dim is the one ball again, bit for bit.
  Index ball_block = 0;
};

struct AscentResult {
  Vector argmax;       // the best point seen (never worse than the start)
  double value = 0.0;  // f(argmax)
  long evaluations = 0;
  bool at_budget = false;  // stopped because max_evaluations ran out, not by a stopping rule
};

/// Maximises f over the ball from `start` (projected onto the ball first).
[[nodiscard]] AscentResult maximise_on_ball(const BallObjective& f, double radius, Vector start,
                                            const AscentOptions& options);

/// values(b) ← f_{a_b}(x_b), grads.col(b) ← ∇f_{a_b}(x_b) for the columns x_b of xs (dim × B,
/// B ≥ 1), x_b a point of ascent a_b = ascents[b] (the objective may differ between ascents);
/// values and grads are resized by the callee. Must not keep references to its arguments.
using BallBatchObjective = std::function<void(
    const Matrix& xs, std::span<const std::size_t> ascents, Vector& values, Matrix& grads)>;

/// maximise_on_ball from every start at once: the ascents advance in lockstep, so each round
/// asks f for the next point of every ascent still running in one call (a model reads its
/// weights once per round, not once per ascent). Each ascent takes exactly the steps it would
/// take alone: result b is maximise_on_ball(f, radius, starts[b], options) whenever f returns
/// for a column what it returns for that point alone.
[[nodiscard]] std::vector<AscentResult> maximise_on_ball_lockstep(const BallBatchObjective& f,
                                                                  double radius,
                                                                  std::vector<Vector> starts,
                                                                  const AscentOptions& options);

/// One ascent of a lockstep search between rounds: what advance_in_lockstep keeps, so that a
/// search can run many ascents a short way, compare them and let only some go on (the race of
/// estimators/ws_race.cpp).
struct AscentState {
  explicit AscentState(Vector start);
  Vector x, g;      // the iterate and ∇f there
  double fx = 0.0;  // f(x)
  double gnorm = 0.0;
  double step = 0.0;  // distance of the next trial step along ĝ
  int stalled = 0;
  bool stopped = false;  // by a rule other than the budget
  bool begun = false;    // f and ∇f known at the (projected) start
  bool done = false;     // stopped by a rule or by options.max_evaluations; never goes on
  AscentResult result;   // so far; final once done
};

/// Advances every ascent of `ascents` that is not done, in lockstep rounds (one call of f per
/// round, indices into `ascents`), until each is done or has used `limit` evaluations (limit ≥
/// 1); an ascent not begun first projects its start onto the ball and evaluates it. Pausing
/// changes nothing: advancing to a limit a and then to b takes the steps that advancing to b at
/// once takes, whenever f returns for a column what it returns for that point alone.
/// maximise_on_ball_lockstep is one advance to options.max_evaluations.
void advance_in_lockstep(const BallBatchObjective& f, double radius, std::span<AscentState> ascents,
                         const AscentOptions& options, long limit);

/// Minimises f over the ball: the result's `value` is f(argmin) (not negated).
[[nodiscard]] AscentResult minimise_on_ball(const BallObjective& f, double radius, Vector start,
                                            const AscentOptions& options);

/// minimise_on_ball from every start at once, in lockstep as maximise_on_ball_lockstep.
[[nodiscard]] std::vector<AscentResult> minimise_on_ball_lockstep(const BallBatchObjective& f,
                                                                  double radius,
                                                                  std::vector<Vector> starts,
                                                                  const AscentOptions& options);

/// value ← f(x), for derivative-free searches.
using BallValue = std::function<double(const Vector& x)>;

/// Derivative-free compass search on the ball from `start` (whose value is `start_value`):
/// tries x ± step·e_j for every coordinate j, projected onto the ball, and moves to the first
/// improvement; after a round without one the step halves. Stops when the step falls below
/// `min_step` or after `max_evaluations`. Costs 2·dim evaluations per round, so it is meant
/// for low dimension, where it finds maxima on kinks and jumps that gradient steps stall at.
[[nodiscard]] AscentResult pattern_search_on_ball(const BallValue& f, double radius, Vector start,
                                                  double start_value, double initial_step,
                                                  double min_step, int max_evaluations);

/// Projects x onto the ball of the given radius (in place).
void project_onto_ball(Vector& x, double radius);

/// Projects each block of `block` consecutive coordinates onto the ball of the given radius
/// (in place); block 0 or x.size(): project_onto_ball. x.size() must be a multiple of block.
void project_onto_balls(Vector& x, double radius, Index block);

}  // namespace wordsens
