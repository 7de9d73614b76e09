#include "cli/search_options.hpp"

namespace wordsens::cli {

namespace po = boost::program_options;

void add_search_options(po::options_description& options, StudyKeyTexts& v, bool ws_options,
                        KeyFormats* formats) {
  // Each key as the study describes it (study/study_settings.cpp): the keys of every search,
  // then those of ws only.
  KeyTable table(options, formats);
  for (const char* key :
       {"max-evals", "rel-tol", "sphere-starts", "near-origin-starts", "guided-start"}) {
    table(key, &v[key]);
  }
  if (!ws_options) return;
  for (const char* key : {"screen-points", "min-total-sphere-starts", "upper-bound", "budget-check",
                          "race-evaluations", "race-survivors"}) {
    table(key, &v[key]);
  }
}

}  // namespace wordsens::cli
