// The search keys of a study (study/study_keys.hpp, apply_search_keys): the keys of every search,
// and those of the word-sensitivity search only.
#include <limits>

#include "core/errors.hpp"
#include "estimators/word_sensitivity.hpp"
#include "study/key_values.hpp"
#include "study/study_keys.hpp"

namespace wordsens {
namespace {

constexpr long long kMaxStarts = 100000;

}  // namespace

void apply_search_keys(const StudyKeyTexts& t, StudyConfig& study) {
  const auto starts = [&](const char* key) {
    return static_cast<int>(parse_integer_value(key, t[key], 0, kMaxStarts));
  };
  const int max_evals = static_cast<int>(
      parse_integer_value("max-evals", t["max-evals"], 1, std::numeric_limits<int>::max()));
  const double rel_tol = parse_real_value(
      "rel-tol", t["rel-tol"], [](double x) { return x >= 0 && x < 1; }, "a number in [0, 1)");
  const int sphere_starts = starts("sphere-starts");
  const int near_origin_starts = starts("near-origin-starts");
  const int screen_points = starts("screen-points");
  const bool guided_start = parse_bool_value("guided-start", t["guided-start"]);
  const bool upper_bound = parse_bool_value("upper-bound", t["upper-bound"]);
  const std::string budget_range =
      "0 (off) or an integer in [2, " + std::to_string(kMaxBudgetCheck) + "]";
  const int budget_check = static_cast<int>(
      parse_integer_value("budget-check", t["budget-check"], 0, kMaxBudgetCheck, budget_range));
  if (budget_check == 1) throw_bad_value("budget-check", t["budget-check"], budget_range);
  const int race_evaluations = starts("race-evaluations");
  const int race_survivors =
      static_cast<int>(parse_integer_value("race-survivors", t["race-survivors"], 1, kMaxStarts));
  if (sphere_starts + near_origin_starts == 0 && !guided_start) {
    throw InputError(
        "sphere-starts = 0, near-origin-starts = 0, guided-start = false: no ascent start (set "
        "one of them)");
  }
  study.search.max_evals = max_evals;
  study.search.rel_tol = rel_tol;
  study.search.sphere_starts = sphere_starts;
  study.search.screen_points = screen_points;
  study.search.min_total_sphere_starts =
      parse_min_total_sphere_starts(t["min-total-sphere-starts"]);
  study.search.near_origin_starts = near_origin_starts;
  study.search.guided_start = guided_start;
  study.search.upper_bound = upper_bound;
  study.search.budget_check = budget_check;
  study.search.race_evaluations = race_evaluations;
  study.search.race_survivors = race_survivors;
}

}  // namespace wordsens
