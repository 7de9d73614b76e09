// The race of the word-sensitivity search: every ascent of a task climbs a few evaluations, and
// only the leaders over all positions go on to the budget.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "estimators/ws_search_steps.hpp"

namespace wordsens::ws_search {
namespace {

/// The race's survivors go on in groups of at most this many positions: a raf evaluator holds
/// X, W, T and φ(X) of its sample (about 10 MB at n = 250, d = 768), and the survivors of a
/// race are spread over many positions, one to three each.
constexpr Index kMaxSurvivorPositions = 32;

/// An ascent of a raced search: its state and its position (an index into the task's positions).
struct RacedAscent {
  AscentState state;
  std::size_t position = 0;
};

/// The race's second leg: the survivors (indices into `ascents`, ordered by position) go on to
/// the full budget in groups of consecutive positions (at most kMaxSurvivorPositions, and about
/// kTargetBatch points per round where a model groups positions), and each position that had a
/// survivor gets its polish and stationarity there, once its ascents are all recorded.
void run_survivors(const FeatureMap& model, const Matrix& X, std::span<const Index> positions,
                   const StartPlan& plan, const AscentOptions& ascent,
                   std::vector<RacedAscent>& ascents, const std::vector<std::size_t>& survivors,
                   const std::vector<std::vector<std::size_t>>& ascents_of,
                   std::vector<PositionBest>& bests) {
  const Index d = X.cols();
  const double radius = std::sqrt(static_cast<double>(d));
  const Index max_positions =
      std::clamp<Index>(model.positions_per_group(kTargetBatch, 1), 1, kMaxSurvivorPositions);
  std::size_t s0 = 0;
  while (s0 < survivors.size()) {
    // The chunk: whole positions, until the points or the positions are full.
    std::vector<Index> members;  // indices into `positions`
    std::size_t s1 = s0;
    while (s1 < survivors.size()) {
      const std::size_t q = ascents[survivors[s1]].position;
      std::size_t end = s1;
      while (end < survivors.size() && ascents[survivors[end]].position == q) ++end;
      if (!members.empty() && (static_cast<Index>(members.size()) >= max_positions ||
                               static_cast<Index>(end - s0) > kTargetBatch)) {
        break;
      }
      members.push_back(static_cast<Index>(q));
      s1 = end;
    }
    std::vector<Index> chunk_positions;
    for (const Index q : members) chunk_positions.push_back(positions[static_cast<std::size_t>(q)]);
    const auto group = model.at_positions(X, chunk_positions);
    std::vector<AscentState> states;
    std::vector<Index> slot_of;
    for (std::size_t s = s0; s < s1; ++s) {
      RacedAscent& a = ascents[survivors[s]];
      states.push_back(std::move(a.state));
      const auto at = std::find(members.begin(), members.end(), static_cast<Index>(a.position));
      slot_of.push_back(static_cast<Index>(at - members.begin()));
    }
    std::vector<Index> slots;
    advance_in_lockstep(group_objective(*group, slot_of, slots), radius, states, ascent,
                        ascent.max_evaluations);
    for (std::size_t s = s0; s < s1; ++s) ascents[survivors[s]].state = std::move(states[s - s0]);
    for (std::size_t m = 0; m < members.size(); ++m) {
      const std::size_t q = static_cast<std::size_t>(members[m]);
      for (const std::size_t a : ascents_of[q]) record_ascent(ascents[a].state.result, bests[q]);
      finish_position(*group, static_cast<Index>(m), plan, d, bests[q]);
    }
    s0 = s1;
  }
}
}  // namespace

/// The raced search over every position: each group climbs plan.race_evaluations evaluations
/// per ascent; then, over the whole task, the race_survivors ascents with the highest f of those
/// still climbing go on to the budget and the others stop where they are (their best point stays
/// a candidate of its position). Survivors take exactly the steps they take unraced; what the
/// race saves is the evaluations of ascents that were far behind at the cut.
std::vector<PositionBest> race_positions(const FeatureMap& model, const Matrix& X,
                                         std::span<const Index> positions, Index group_size,
                                         const StartPlan& plan,
                                         std::span<const PositionBest> priors,
                                         std::uint32_t master_seed, std::uint32_t task_id,
                                         std::vector<double>& phi_norms) {
  const Index d = X.cols();
  const double radius = std::sqrt(static_cast<double>(d));
  AscentOptions ascent = plan.ascent;
  ascent.max_evaluations *= plan.factor;
  const long cut = static_cast<long>(plan.race_evaluations) * plan.factor;
  std::vector<PositionBest> bests(positions.size());
  phi_norms.assign(positions.size(), 0.0);
  std::vector<RacedAscent> ascents;
  std::vector<std::vector<std::size_t>> ascents_of(positions.size());
  for (std::size_t g0 = 0; g0 < positions.size(); g0 += static_cast<std::size_t>(group_size)) {
    const std::size_t g1 = std::min(positions.size(), g0 + static_cast<std::size_t>(group_size));
    const std::span<const Index> members = positions.subspan(g0, g1 - g0);
    const auto group = model.at_positions(X, members);
    std::vector<PositionBest> group_bests;
    std::vector<double> group_norms;
    std::vector<Vector> starts;
    std::vector<Index> start_slot;
    add_group_starts(model, X, *group, members, plan,
                     priors.empty() ? priors : priors.subspan(g0, g1 - g0), master_seed, task_id,
                     group_bests, group_norms, starts, start_slot);
    std::vector<AscentState> states;
    states.reserve(starts.size());
    for (Vector& start : starts) states.emplace_back(std::move(start));
    std::vector<Index> slots;
    advance_in_lockstep(group_objective(*group, start_slot, slots), radius, states, ascent, cut);
    for (std::size_t a = 0; a < states.size(); ++a) {
      const std::size_t q = g0 + static_cast<std::size_t>(start_slot[a]);
      ascents_of[q].push_back(ascents.size());
      ascents.push_back({std::move(states[a]), q});
    }
    for (std::size_t m = 0; m < members.size(); ++m) {
      bests[g0 + m] = std::move(group_bests[m]);
      phi_norms[g0 + m] = group_norms[m];
    }
  }
  // The cut: the highest f among the ascents still climbing, ties to the earlier ascent (the
  // order of positions, then of starts), so the choice is a pure function of the task.
  std::vector<std::size_t> climbing;
  for (std::size_t a = 0; a < ascents.size(); ++a) {
    if (!ascents[a].state.done) climbing.push_back(a);
  }
  std::stable_sort(climbing.begin(), climbing.end(), [&](std::size_t l, std::size_t r) {
    return ascents[l].state.result.value > ascents[r].state.result.value;
  });
  const std::size_t kept =
      std::min(climbing.size(), static_cast<std::size_t>(plan.race_survivors) * plan.factor);
  std::vector<std::size_t> survivors(climbing.begin(),
                                     climbing.begin() + static_cast<std::ptrdiff_t>(kept));
  std::sort(survivors.begin(), survivors.end());  // by position, then start
  run_survivors(model, X, positions, plan, ascent, ascents, survivors, ascents_of, bests);
  // Positions without a survivor: their ascents as they stood at the cut (or done before it).
  for (std::size_t q = 0; q < positions.size(); ++q) {
    if (bests[q].stationarity_known) continue;
    for (const std::size_t a : ascents_of[q]) record_ascent(ascents[a].state.result, bests[q]);
  }
  return bests;
}

}  // namespace wordsens::ws_search
