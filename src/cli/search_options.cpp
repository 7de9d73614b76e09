#include "cli/search_options.hpp"

#include <stdexcept>

#include "estimators/word_sensitivity.hpp"

namespace wordsens::cli {

namespace po = boost::program_options;

SearchOptionValues::SearchOptionValues() {
  const StudyConfig defaults;
  max_evals = defaults.search.max_evals;
  sphere_starts = defaults.search.sphere_starts;
  screen_points = defaults.search.screen_points;
  near_origin_starts = defaults.search.near_origin_starts;
  budget_check = defaults.search.budget_check;
  rel_tol = defaults.search.rel_tol;
  min_total_sphere_starts = min_total_sphere_starts_text(defaults.search.min_total_sphere_starts);
  guided_start = defaults.search.guided_start;
  upper_bound = defaults.search.upper_bound;
}

void add_search_options(po::options_description& options, SearchOptionValues& v, bool ws_options) {
  // clang-format off
  options.add_options()
      ("max-evals", po::value(&v.max_evals)->default_value(v.max_evals),
       "ascent budget: objective evaluations per start (>= 1)")
      ("rel-tol", po::value(&v.rel_tol)->default_value(v.rel_tol, "1e-7"),
       "an ascent stops when its relative progress stays below this, in [0, 1)")
      ("sphere-starts", po::value(&v.sphere_starts)->default_value(v.sphere_starts),
       "ascents per position from random points on the sphere |Delta| = sqrt(d)")
      ("near-origin-starts", po::value(&v.near_origin_starts)->default_value(v.near_origin_starts),
       "ascents per position from 0.1*N(0, I) near the origin")
      ("guided-start", po::value(&v.guided_start)->default_value(v.guided_start, "true"),
       "also climb from the directions the model's weights suggest (true|false)");
  if (!ws_options) return;
  options.add_options()
      ("screen-points", po::value(&v.screen_points)->default_value(v.screen_points),
       "ws: random sphere points per position ranked by f alone to pick the sphere starts")
      ("min-total-sphere-starts", po::value(&v.min_total_sphere_starts)
           ->default_value(v.min_total_sphere_starts),
       "ws: at least this many sphere ascents in all, spread over the examined positions "
       "(positions = first gets this many); auto: 32 for raf and raf_relu, 0 for rf and drf")
      ("upper-bound", po::value(&v.upper_bound)->default_value(v.upper_bound, "true"),
       "ws: compute the certified upper bound S_upper where the model has one (true|false)")
      ("budget-check", po::value(&v.budget_check)->default_value(v.budget_check),
       "ws: 0 off; f in 2..16: trial 0 of every one-word grid point reruns its search with f times the "
       "evaluations and starts, seeded with the plain search's points (S_budget_check >= S)");
  // clang-format on
}

void apply_search_options(const SearchOptionValues& v, StudyConfig& study) {
  const auto require = [](bool ok, const std::string& message) {
    if (!ok) throw std::invalid_argument(message);
  };
  require(v.max_evals >= 1, "max-evals must be at least 1");
  require(v.rel_tol >= 0 && v.rel_tol < 1, "rel-tol must be in [0, 1)");
  require(v.sphere_starts >= 0 && v.sphere_starts <= 100000 && v.near_origin_starts >= 0 &&
              v.near_origin_starts <= 100000 && v.screen_points >= 0 && v.screen_points <= 100000,
          "sphere-starts, near-origin-starts and screen-points must be in 0 .. 100000");
  require(v.sphere_starts + v.near_origin_starts > 0 || v.guided_start,
          "no ascent start: set sphere-starts, near-origin-starts or guided-start");
  require(v.budget_check == 0 || (v.budget_check >= 2 && v.budget_check <= kMaxBudgetCheck),
          "budget-check = " + std::to_string(v.budget_check) + ": expected 0 (off) or 2 .. " +
              std::to_string(kMaxBudgetCheck));
  study.search.max_evals = v.max_evals;
  study.search.rel_tol = v.rel_tol;
  study.search.sphere_starts = v.sphere_starts;
  study.search.screen_points = v.screen_points;
  study.search.min_total_sphere_starts = parse_min_total_sphere_starts(v.min_total_sphere_starts);
  study.search.near_origin_starts = v.near_origin_starts;
  study.search.guided_start = v.guided_start;
  study.search.upper_bound = v.upper_bound;
  study.search.budget_check = v.budget_check;
}

}  // namespace wordsens::cli
