#pragma once
// The options of the word-sensitivity and head searches for `wordsens run`, `wordsens ws` and
// `wordsens gen`: each key described once, by the study (study/study_settings.hpp: its default,
// form, example and help text).
#include <boost/program_options.hpp>
#include <string>

#include "cli/key_table.hpp"
#include "study/study.hpp"

namespace wordsens::cli {

// The values as written (apply_search_options parses them, cli/option_values.hpp).
struct SearchOptionValues {
  std::string max_evals, rel_tol, sphere_starts, near_origin_starts, guided_start, screen_points,
      race_evaluations, race_survivors, min_total_sphere_starts, upper_bound, budget_check;
  SearchOptionValues();  // StudyConfig's defaults
};

/// Adds --max-evals --rel-tol --sphere-starts --near-origin-starts --guided-start, and with
/// `ws_options` also --screen-points --min-total-sphere-starts --upper-bound --budget-check
/// --race-evaluations
/// --race-survivors; each
/// key's format goes to `formats` when given (the configuration reference).
void add_search_options(boost::program_options::options_description& options,
                        SearchOptionValues& values, bool ws_options, KeyFormats* formats = nullptr);

/// Parses the values, checks ranges and spellings and copies them into `study`; throws
/// InputError with one line starting with the key ("max-evals = '0': expected …").
void apply_search_options(const SearchOptionValues& values, StudyConfig& study);

}  // namespace wordsens::cli
