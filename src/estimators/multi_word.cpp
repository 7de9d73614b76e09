#include "estimators/multi_word.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/errors.hpp"
#include "core/gaussian.hpp"
#include "estimators/positions.hpp"

namespace wordsens {
namespace {

constexpr const char* kRandomPrefix = "random:";
// The starts of word set s come from matrix kSetStartMatrix + s of Stream::ascent_starts, past
// every single-word position's matrix (matrix = position < 2³¹), so they never coincide.
constexpr std::uint32_t kSetStartMatrix = 0x80000000U;

[[noreturn]] void bad_family(const std::string& text) {
  throw InputError("word sets must be first, random:r (r >= 1) or greedy, got '" + text + "'");
}

/// r random m-subsets of the n positions (estimators/positions.hpp), from Stream::positions with
/// entity = task id and matrix = 1 + set (matrix 0 is PositionSet's).
std::vector<std::vector<Index>> random_sets(Index n, Index m, Index r, std::uint32_t master_seed,
                                            std::uint32_t task_id) {
  std::vector<std::vector<Index>> sets;
  for (Index s = 0; s < r; ++s) {
    sets.push_back(random_subset(
        n, m,
        {Philox(master_seed, Stream::positions), task_id, static_cast<std::uint32_t>(1 + s)}));
  }
  return sets;
}

/// Each block of `block` coordinates scaled to norm `radius` (a zero block stays zero).
void scale_blocks_to_sphere(Vector& x, Index block, double radius) {
  for (Index b0 = 0; b0 < x.size(); b0 += block) {
    auto part = x.segment(b0, block);
    const double norm = part.norm();
    if (norm > 0.0) part *= radius / norm;
  }
}

struct SetBest {
  double value = -std::numeric_limits<double>::infinity();  // f(Δ) = ‖φ' − φ‖²
  Vector delta;
  double phi_norm = 0.0;
  long evaluations = 0;
  long starts = 0;
  long starts_at_budget = 0;
};

/// The joint ascent over one word set from its starts: the model's guided direction for every
/// word at once, random points of the product of spheres, near-origin points, and `warm` (the
/// greedy search's best point of the smaller set, extended).
SetBest search_set(const FeatureMap& model, const Matrix& X, const std::vector<Index>& set,
                   const WsOptions& ws, std::uint32_t master_seed, std::uint32_t task_id,
                   std::uint32_t set_index, std::vector<Vector> warm) {
  const auto evaluator = require_word_sets(model).at_word_set(X, set);
  const Index d = X.cols(), m = static_cast<Index>(set.size());
  const double radius = std::sqrt(static_cast<double>(d));
  std::vector<Vector> starts = std::move(warm);
  if (const GuidedStarts* guides = guided_starts(model); ws.guided_start && guides != nullptr) {
    Vector guided(m * d);
    bool complete = true;
    for (Index j = 0; j < m && complete; ++j) {
      const auto direction = guides->guided_direction(X, set[static_cast<std::size_t>(j)]);
      if (!direction || !(direction->norm() > 0.0)) {
        complete = false;
      } else {
        guided.segment(j * d, d) = *direction;
      }
    }
    if (complete) {
      scale_blocks_to_sphere(guided, d, radius);
      starts.push_back(std::move(guided));
    }
  }
  const GaussianMatrix rows(
      {Philox(master_seed, Stream::ascent_starts), task_id, kSetStartMatrix + set_index}, 1.0);
  const int sphere = std::max(ws.sphere_starts, starts.empty() ? 1 : 0);
  for (int s = 0; s < sphere; ++s) {
    Vector start = rows.row_segment(s, 0, m * d);
    scale_blocks_to_sphere(start, d, radius);
    starts.push_back(std::move(start));
  }
  for (int s = 0; s < ws.near_origin_starts; ++s) {
    starts.push_back(0.1 * rows.row_segment(sphere + s, 0, m * d));
  }

  AscentOptions ascent = ws.ascent;
  ascent.ball_block = d;
  const BallBatchObjective f = [&evaluator](const Matrix& xs, std::span<const std::size_t>,
                                            Vector& values, Matrix& grads) {
    evaluator->sensitivity_objective(xs, values, &grads);
  };
  SetBest best;
  best.phi_norm = evaluator->base_features().norm();
  best.starts = static_cast<long>(starts.size());
  for (AscentResult& result : maximise_on_ball_lockstep(f, radius, std::move(starts), ascent)) {
    best.evaluations += result.evaluations;
    if (result.at_budget) ++best.starts_at_budget;
    if (result.value > best.value) {  // ties keep the earlier start
      best.value = result.value;
      best.delta = std::move(result.argmax);
    }
  }
  return best;
}

void check_words(const FeatureMap& model, const Matrix& X, Index m) {
  const ModelSpec& spec = model.spec();
  if (X.rows() != spec.n || X.cols() != spec.d) {
    throw std::invalid_argument("sample is " + std::to_string(X.rows()) + "x" +
                                std::to_string(X.cols()) + " but the model was built for " +
                                std::to_string(spec.n) + "x" + std::to_string(spec.d));
  }
  if (m < 1 || m > spec.n) {
    throw std::invalid_argument("words must be between 1 and n = " + std::to_string(spec.n) +
                                ", got " + std::to_string(m));
  }
}

MultiWordResult from_single_word(const WsResult& ws) {
  MultiWordResult out;
  out.words = 1;
  out.S = ws.S;
  out.S_upper = ws.S_upper;
  out.S_upper_scope = ws.S_upper_scope;
  out.argmax_set = {ws.argmax_position};
  out.witness = ws.witness;
  out.phi_norm = ws.phi_norm;
  out.cert_rel_err = ws.cert_rel_err;
  for (std::size_t q = 0; q < ws.positions.size(); ++q) {
    out.sets.push_back({ws.positions[q]});
    out.set_maxima.push_back(ws.position_maxima[q]);
  }
  out.evaluations = ws.evaluations;
  out.starts = ws.starts;
  out.starts_at_budget = ws.starts_at_budget;
  return out;
}

}  // namespace

WordSetFamily WordSetFamily::parse(const std::string& text) {
  if (text == "first") return {Kind::first, 1};
  if (text == "greedy") return {Kind::greedy, 1};
  const std::string prefix = kRandomPrefix;
  if (text.rfind(prefix, 0) == 0) {
    long long r = 0;
    const char* begin = text.data() + prefix.size();
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(begin, end, r);
    if (ec == std::errc() && ptr == end && r >= 1) return {Kind::random, static_cast<Index>(r)};
  }
  bad_family(text);
}

std::string WordSetFamily::to_string() const {
  switch (kind) {
    case Kind::first:
      return "first";
    case Kind::random:
      return kRandomPrefix + std::to_string(count);
    case Kind::greedy:
      return "greedy";
  }
  return "first";
}

double multi_word_sensitivity_at(const FeatureMap& model, const Matrix& X,
                                 const std::vector<Index>& set, const Vector& delta) {
  const Index d = X.cols(), m = static_cast<Index>(set.size());
  if (delta.size() != m * d) throw std::invalid_argument("witness does not fit the word set");
  const Vector phi = model.features(X);
  Matrix perturbed = X;
  for (Index j = 0; j < m; ++j) {
    perturbed.row(set[static_cast<std::size_t>(j)]) += delta.segment(j * d, d).transpose();
  }
  return (model.features(perturbed) - phi).norm() / phi.norm();
}

MultiWordResult estimate_multi_word_sensitivity(const FeatureMap& model, const Matrix& X,
                                                const MultiWordOptions& options,
                                                std::uint32_t master_seed, std::uint32_t task_id) {
  const Index m = options.words, n = X.rows(), d = X.cols();
  check_words(model, X, m);
  if (m == 1) {
    WsOptions ws = options.ws;
    switch (options.sets.kind) {
      case WordSetFamily::Kind::first:
        ws.positions = {PositionSet::Kind::first, 0};
        break;
      case WordSetFamily::Kind::random:
        ws.positions = {PositionSet::Kind::random, options.sets.count};
        break;
      case WordSetFamily::Kind::greedy:  // the best single word is the best of all positions
        ws.positions = {PositionSet::Kind::all, 0};
        break;
    }
    return from_single_word(estimate_word_sensitivity(model, X, ws, master_seed, task_id));
  }

  MultiWordResult out;
  out.words = m;
  std::vector<SetBest> bests;
  if (options.sets.kind == WordSetFamily::Kind::greedy) {
    // Grow from the best single word: each stage tries every word not yet in the set, warm-started
    // from the previous stage's best point (the new word's block at 0), and keeps the best.
    WsOptions single = options.ws;
    single.positions = {PositionSet::Kind::all, 0};
    single.upper_bound = false;
    const WsResult first = estimate_word_sensitivity(model, X, single, master_seed, task_id);
    out.evaluations += first.evaluations;
    out.starts += first.starts;
    out.starts_at_budget += first.starts_at_budget;
    std::vector<Index> grown = {first.argmax_position};
    Vector grown_delta = first.witness;
    std::uint32_t set_index = 0;
    for (Index size = 2; size <= m; ++size) {
      std::vector<std::vector<Index>> stage_sets;
      std::vector<SetBest> stage;
      for (Index c = 0; c < n; ++c) {
        if (std::find(grown.begin(), grown.end(), c) != grown.end()) continue;
        std::vector<Index> candidate = grown;
        candidate.push_back(c);
        Vector warm = Vector::Zero(size * d);
        warm.head((size - 1) * d) = grown_delta;
        stage.push_back(search_set(model, X, candidate, options.ws, master_seed, task_id,
                                   set_index++, {std::move(warm)}));
        stage_sets.push_back(std::move(candidate));
      }
      std::size_t arg = 0;
      for (std::size_t q = 0; q < stage.size(); ++q) {
        out.evaluations += stage[q].evaluations;
        out.starts += stage[q].starts;
        out.starts_at_budget += stage[q].starts_at_budget;
        if (stage[q].value > stage[arg].value) arg = q;
      }
      grown = stage_sets[arg];
      grown_delta = stage[arg].delta;
      if (size == m) {
        out.sets = std::move(stage_sets);
        bests = std::move(stage);
      }
    }
  } else {
    out.sets = options.sets.kind == WordSetFamily::Kind::first
                   ? std::vector<std::vector<Index>>{[m] {
                       std::vector<Index> set(static_cast<std::size_t>(m));
                       std::iota(set.begin(), set.end(), Index{0});
                       return set;
                     }()}
                   : random_sets(n, m, options.sets.count, master_seed, task_id);
    for (std::size_t s = 0; s < out.sets.size(); ++s) {
      bests.push_back(search_set(model, X, out.sets[s], options.ws, master_seed, task_id,
                                 static_cast<std::uint32_t>(s), {}));
      out.evaluations += bests.back().evaluations;
      out.starts += bests.back().starts;
      out.starts_at_budget += bests.back().starts_at_budget;
    }
  }

  std::size_t arg = 0;
  for (std::size_t s = 0; s < bests.size(); ++s) {
    if (bests[s].value > bests[arg].value) arg = s;
  }
  out.phi_norm = bests[arg].phi_norm;
  if (!(out.phi_norm > 0.0) || !std::isfinite(out.phi_norm)) {
    throw std::runtime_error("word sensitivity is undefined: ||phi(X)|| = " +
                             std::to_string(out.phi_norm));
  }
  for (const SetBest& best : bests) {
    out.set_maxima.push_back(std::sqrt(std::max(best.value, 0.0)) / out.phi_norm);
  }
  out.S = out.set_maxima[arg];
  out.argmax_set = out.sets[arg];
  out.witness = bests[arg].delta;

  const double recomputed = multi_word_sensitivity_at(model, X, out.argmax_set, out.witness);
  out.cert_rel_err = std::abs(recomputed - out.S) / std::max(out.S, 1e-300);
  require_certified("S_m", out.S, out.cert_rel_err);

  if (const WordSets* sets = word_sets(model); options.ws.upper_bound && sets != nullptr) {
    if (const auto bound = sets->word_set_upper_bound(X, out.sets)) {
      out.S_upper = bound->value / out.phi_norm;
      out.S_upper_scope = static_cast<int>(bound->scope);
    }
  }
  return out;
}

}  // namespace wordsens
