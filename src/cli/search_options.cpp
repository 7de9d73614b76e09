#include "cli/search_options.hpp"

#include <limits>

#include "cli/option_values.hpp"
#include "core/errors.hpp"
#include "estimators/word_sensitivity.hpp"

namespace wordsens::cli {

namespace po = boost::program_options;

namespace {

constexpr long long kMaxStarts = 100000;

std::string bool_text(bool value) { return value ? "true" : "false"; }

// format_double writes 1e-07; --help has always shown 1e-7 (the same double).
std::string short_exponent(std::string text) {
  for (const char* sign : {"e-0", "e+0"}) {
    const auto at = text.find(sign);
    if (at != std::string::npos && at + 3 < text.size()) text.erase(at + 2, 1);
  }
  return text;
}

}  // namespace

SearchOptionValues::SearchOptionValues() {
  const StudyConfig defaults;
  max_evals = std::to_string(defaults.search.max_evals);
  rel_tol = short_exponent(format_double(defaults.search.rel_tol));
  sphere_starts = std::to_string(defaults.search.sphere_starts);
  near_origin_starts = std::to_string(defaults.search.near_origin_starts);
  guided_start = bool_text(defaults.search.guided_start);
  screen_points = std::to_string(defaults.search.screen_points);
  min_total_sphere_starts = min_total_sphere_starts_text(defaults.search.min_total_sphere_starts);
  upper_bound = bool_text(defaults.search.upper_bound);
  budget_check = std::to_string(defaults.search.budget_check);
  race_evaluations = std::to_string(defaults.search.race_evaluations);
  race_survivors = std::to_string(defaults.search.race_survivors);
}

void add_search_options(po::options_description& options, SearchOptionValues& v, bool ws_options,
                        KeyFormats* formats) {
  // clang-format off
  KeyTable(options, formats)
      ("max-evals", po::value(&v.max_evals)->default_value(v.max_evals),
       {"integer >= 1", "max-evals = 400"},
       "ascent budget: objective evaluations per start (>= 1)")
      ("rel-tol", po::value(&v.rel_tol)->default_value(v.rel_tol),
       {"number in [0, 1)", "rel-tol = 1e-6"},
       "an ascent stops when its relative progress stays below this, in [0, 1)")
      ("sphere-starts", po::value(&v.sphere_starts)->default_value(v.sphere_starts),
       {"integer >= 0", "sphere-starts = 4"},
       "ascents per position from random points on the sphere |Delta| = sqrt(d)")
      ("near-origin-starts", po::value(&v.near_origin_starts)->default_value(v.near_origin_starts),
       {"integer >= 0", "near-origin-starts = 2"},
       "ascents per position from 0.1*N(0, I) near the origin")
      ("guided-start", po::value(&v.guided_start)->default_value(v.guided_start),
       {"true or false", "guided-start = false"},
       "also climb from the directions the model's weights suggest (true|false)");
  if (!ws_options) return;
  KeyTable(options, formats)
      ("screen-points", po::value(&v.screen_points)->default_value(v.screen_points),
       {"integer >= 0", "screen-points = 64"},
       "ws: random sphere points per position ranked by f alone to pick the sphere starts")
      ("min-total-sphere-starts", po::value(&v.min_total_sphere_starts)
           ->default_value(v.min_total_sphere_starts),
       {"integer >= 0, or auto", "min-total-sphere-starts = 16"},
       "ws: at least this many sphere ascents in all, spread over the examined positions "
       "(positions = first gets this many); auto: 32 for raf and raf_relu, 0 for rf and drf")
      ("upper-bound", po::value(&v.upper_bound)->default_value(v.upper_bound),
       {"true or false", "upper-bound = false"},
       "ws: compute the certified upper bound S_upper where the model has one (true|false)")
      ("budget-check", po::value(&v.budget_check)->default_value(v.budget_check),
       {"0, or an integer in [2, 16]", "budget-check = 4"},
       "ws: 0 off; f in 2..16: trial 0 of every one-word grid point reruns its search with f times the "
       "evaluations and starts, seeded with the plain search's points (S_budget_check >= S)")
      ("race-evaluations", po::value(&v.race_evaluations)->default_value(v.race_evaluations),
       {"integer >= 0", "race-evaluations = 30"},
       "ws: 0 off; e >= 1: every ascent climbs e evaluations, then only the race-survivors best of "
       "those still climbing, over all positions, go on to max-evals (where e < max-evals, d > 16 "
       "and the starts outnumber them)")
      ("race-survivors", po::value(&v.race_survivors)->default_value(v.race_survivors),
       {"integer >= 1", "race-survivors = 128"},
       "ws: the ascents a race lets go on to max-evals");
  // clang-format on
}

void apply_search_options(const SearchOptionValues& v, StudyConfig& study) {
  const auto starts = [](const char* key, const std::string& text) {
    return static_cast<int>(parse_integer_value(key, text, 0, kMaxStarts));
  };
  const int max_evals = static_cast<int>(
      parse_integer_value("max-evals", v.max_evals, 1, std::numeric_limits<int>::max()));
  const double rel_tol = parse_real_value(
      "rel-tol", v.rel_tol, [](double x) { return x >= 0 && x < 1; }, "a number in [0, 1)");
  const int sphere_starts = starts("sphere-starts", v.sphere_starts);
  const int near_origin_starts = starts("near-origin-starts", v.near_origin_starts);
  const int screen_points = starts("screen-points", v.screen_points);
  const bool guided_start = parse_bool_value("guided-start", v.guided_start);
  const bool upper_bound = parse_bool_value("upper-bound", v.upper_bound);
  const std::string budget_range =
      "0 (off) or an integer in [2, " + std::to_string(kMaxBudgetCheck) + "]";
  const int budget_check = static_cast<int>(
      parse_integer_value("budget-check", v.budget_check, 0, kMaxBudgetCheck, budget_range));
  if (budget_check == 1) throw_bad_value("budget-check", v.budget_check, budget_range);
  const int race_evaluations = starts("race-evaluations", v.race_evaluations);
  const int race_survivors =
      static_cast<int>(parse_integer_value("race-survivors", v.race_survivors, 1, kMaxStarts));
  if (sphere_starts + near_origin_starts == 0 && !guided_start) {
    throw InputError(
        "sphere-starts = 0, near-origin-starts = 0, guided-start = false: no ascent start (set "
        "one of them)");
  }
  study.search.max_evals = max_evals;
  study.search.rel_tol = rel_tol;
  study.search.sphere_starts = sphere_starts;
  study.search.screen_points = screen_points;
  study.search.min_total_sphere_starts = parse_min_total_sphere_starts(v.min_total_sphere_starts);
  study.search.near_origin_starts = near_origin_starts;
  study.search.guided_start = guided_start;
  study.search.upper_bound = upper_bound;
  study.search.budget_check = budget_check;
  study.search.race_evaluations = race_evaluations;
  study.search.race_survivors = race_survivors;
}

}  // namespace wordsens::cli
