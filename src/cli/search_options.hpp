#pragma once
// The options of the word-sensitivity and head searches, declared once for `wordsens run`,
// `wordsens ws` and `wordsens gen`: one spelling (the config key is the long option name), one
// default (StudyConfig's) and one help text for each.
#include <boost/program_options.hpp>
#include <string>

#include "study/study.hpp"

namespace wordsens::cli {

struct SearchOptionValues {
  int max_evals, sphere_starts, screen_points, near_origin_starts, budget_check;
  double rel_tol;
  std::string min_total_sphere_starts;
  bool guided_start, upper_bound;
  SearchOptionValues();  // StudyConfig's defaults
};

/// Adds --max-evals --rel-tol --sphere-starts --near-origin-starts --guided-start, and with
/// `ws_options` also --screen-points --min-total-sphere-starts --upper-bound --budget-check.
void add_search_options(boost::program_options::options_description& options,
                        SearchOptionValues& values, bool ws_options);

/// Checks ranges and spellings and copies the values into `study`; throws std::invalid_argument
/// with one line.
void apply_search_options(const SearchOptionValues& values, StudyConfig& study);

}  // namespace wordsens::cli
