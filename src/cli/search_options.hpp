#pragma once
// The options of the word-sensitivity and head searches for `wordsens run`, `wordsens ws` and
// `wordsens gen`: each key described once, by the study (study/study_settings.hpp: its default,
// form, example and help text), and parsed by it (study/study_keys.hpp, apply_search_keys).
#include <boost/program_options.hpp>

#include "cli/key_table.hpp"
#include "study/study_keys.hpp"

namespace wordsens::cli {

/// Adds --max-evals --rel-tol --sphere-starts --near-origin-starts --guided-start, and with
/// `ws_options` also --screen-points --min-total-sphere-starts --upper-bound --budget-check
/// --race-evaluations --race-survivors, bound to `values`; each key's format goes to `formats`
/// when given (the configuration reference).
void add_search_options(boost::program_options::options_description& options, StudyKeyTexts& values,
                        bool ws_options, KeyFormats* formats = nullptr);

}  // namespace wordsens::cli
