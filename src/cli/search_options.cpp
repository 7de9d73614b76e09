#include "cli/search_options.hpp"

#include <limits>

#include "cli/option_values.hpp"
#include "core/errors.hpp"
#include "estimators/word_sensitivity.hpp"
#include "study/study_settings.hpp"

namespace wordsens::cli {

namespace po = boost::program_options;

namespace {

constexpr long long kMaxStarts = 100000;

}  // namespace

SearchOptionValues::SearchOptionValues() {
  // Each key's default as the study describes it (study/study_settings.cpp).
  const auto initial = [](const char* key) { return setting_description(key).default_text; };
  max_evals = initial("max-evals");
  rel_tol = initial("rel-tol");
  sphere_starts = initial("sphere-starts");
  near_origin_starts = initial("near-origin-starts");
  guided_start = initial("guided-start");
  screen_points = initial("screen-points");
  min_total_sphere_starts = initial("min-total-sphere-starts");
  upper_bound = initial("upper-bound");
  budget_check = initial("budget-check");
  race_evaluations = initial("race-evaluations");
  race_survivors = initial("race-survivors");
}

void add_search_options(po::options_description& options, SearchOptionValues& v, bool ws_options,
                        KeyFormats* formats) {
  // Each key as the study describes it (study/study_settings.cpp): the keys of every search,
  // then those of ws only.
  KeyTable(options, formats)("max-evals", &v.max_evals)("rel-tol", &v.rel_tol)(
      "sphere-starts", &v.sphere_starts)("near-origin-starts", &v.near_origin_starts)(
      "guided-start", &v.guided_start);
  if (!ws_options) return;
  KeyTable(options, formats)("screen-points", &v.screen_points)(
      "min-total-sphere-starts", &v.min_total_sphere_starts)("upper-bound", &v.upper_bound)(
      "budget-check", &v.budget_check)("race-evaluations", &v.race_evaluations)("race-survivors",
                                                                                &v.race_survivors);
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
