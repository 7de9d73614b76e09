// What `wordsens run` does when no option is given, and the help text that documents it.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/config.hpp"
#include "parse_helper.hpp"
#include "study/study.hpp"

namespace wordsens::cli {
namespace {

using testing::contains;
using testing::parse;

TEST(RunDefaults, StudyGridsAndListsWithoutOptions) {
  const auto options = parse({});
  const StudyConfig& s = options.study;
  EXPECT_EQ(s.grid.experiments, std::vector<Experiment>{Experiment::ws});
  // `run` studies every model by default, not StudyConfig's single rf.
  EXPECT_EQ(model_names(s.grid.models), (std::vector<std::string>{"rf", "drf", "raf", "raf_relu"}));
  EXPECT_TRUE(s.grid.gen_models.empty());
  EXPECT_EQ(s.grid.n, (std::vector<Index>{10, 20, 40}));
  EXPECT_EQ(s.grid.d, std::vector<Index>{8});
  EXPECT_TRUE(s.grid.gen_n.empty());
  EXPECT_TRUE(s.grid.gen_d.empty());
  EXPECT_EQ(s.grid.k, (std::vector<KItem>{KItem{true, 1.0, 0}}));
  EXPECT_EQ(s.grid.N, std::vector<Index>{20});
  EXPECT_EQ(s.grid.layers, std::vector<Index>{2});
  EXPECT_EQ(s.activation, Activation::relu);
  EXPECT_EQ(s.grid.heads, std::vector<Index>{4});
  EXPECT_EQ(s.grid.mlp_width, (std::vector<MlpWidthItem>{MlpWidthItem{true, 4.0, 0}}));
  EXPECT_EQ(s.mask, AttentionMask::none);
  EXPECT_EQ(s.rf_sampling, RfSampling::full);
  EXPECT_FALSE(s.descriptive);
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.search.positions.to_string(), "all");
  EXPECT_EQ(s.grid.words, std::vector<Index>{1});
  EXPECT_TRUE(s.grid.words_fraction.empty());
  EXPECT_EQ(s.search.word_sets.to_string(), "first");
  EXPECT_EQ(s.search.trainings, (std::vector<Training>{Training::finetune, Training::retrain}));
  EXPECT_EQ(s.search.objectives,
            (std::vector<HeadObjective>{HeadObjective::loss, HeadObjective::align}));
  EXPECT_EQ(s.data.to_string(), "synthetic");
  EXPECT_FALSE(s.save_witness);
}

// The search options promise StudyConfig's defaults, so that `run`, `ws` and `gen` agree.
TEST(RunDefaults, SearchOptionsAndTrialsAreStudyConfigDefaults) {
  const auto options = parse({});
  const StudyConfig& s = options.study;
  const StudyConfig defaults;
  EXPECT_EQ(s.grid.trials, defaults.grid.trials);
  EXPECT_EQ(s.search.max_evals, defaults.search.max_evals);
  EXPECT_EQ(s.search.rel_tol, defaults.search.rel_tol);
  EXPECT_EQ(s.search.sphere_starts, defaults.search.sphere_starts);
  EXPECT_EQ(s.search.screen_points, defaults.search.screen_points);
  EXPECT_EQ(s.search.min_total_sphere_starts, defaults.search.min_total_sphere_starts);
  EXPECT_EQ(s.search.near_origin_starts, defaults.search.near_origin_starts);
  EXPECT_EQ(s.search.guided_start, defaults.search.guided_start);
  EXPECT_EQ(s.search.upper_bound, defaults.search.upper_bound);
  EXPECT_EQ(s.search.budget_check, defaults.search.budget_check);
  EXPECT_EQ(s.search.race_evaluations, 0) << "the race is off unless asked for";
  EXPECT_EQ(s.search.race_survivors, defaults.search.race_survivors);
}

TEST(RunDefaults, RunOptionsWithoutOptions) {
  const auto options = parse({});
  EXPECT_EQ(options.config_path, "");
  EXPECT_EQ(options.output, "results.h5");
  EXPECT_FALSE(options.overwrite);
  EXPECT_FALSE(options.dry_run);
  EXPECT_FALSE(options.help);
  EXPECT_EQ(options.walltime, 0.0);
  EXPECT_EQ(options.progress_interval, 10.0);
  EXPECT_TRUE(options.shard.is_whole());
  EXPECT_EQ(options.shard.index, 0u);
  EXPECT_EQ(options.command_line, "wordsens run");
}

// Every option of `wordsens run`, by group.
const std::vector<std::string> kStudyKeys{
    "experiments",  "models",         "gen-models", "n",           "d",
    "gen-n",        "gen-d",          "k",          "N",           "layers",
    "activation",   "rf-sampling",    "trials",     "seed",        "positions",
    "words",        "words-fraction", "word-sets",  "training",    "objective",
    "data",         "save-witness",   "purpose",    "first-trial", "max-trials",
    "select",       "heads",          "mask",       "mlp-width",   "encoder",
    "encoder-layer"};
const std::vector<std::string> kSearchKeys{
    "max-evals",    "rel-tol",          "sphere-starts",           "near-origin-starts",
    "guided-start", "screen-points",    "min-total-sphere-starts", "upper-bound",
    "budget-check", "race-evaluations", "race-survivors"};
const std::vector<std::string> kRunKeys{
    "help",  "config",   "output",          "overwrite", "dry-run",    "walltime",
    "shard", "progress", "memory-per-rank", "format",    "calibration"};

TEST(RunHelp, NamesEveryOptionWithItsDefault) {
  const std::string help = run_help_text();
  EXPECT_TRUE(contains(help, "usage: wordsens run [CONFIG.ini | --config=CONFIG.ini]")) << help;
  for (const auto* keys : {&kStudyKeys, &kSearchKeys, &kRunKeys}) {
    for (const std::string& key : *keys) EXPECT_TRUE(contains(help, "--" + key + " ")) << key;
  }
  EXPECT_TRUE(contains(help, "-h [ --help ]"));
  EXPECT_TRUE(contains(help, "-o [ --output ]"));
  // Defaults as the parser applies them (spot checks of each kind of value).
  EXPECT_TRUE(contains(help, "--n arg (=10,20,40)")) << help;
  EXPECT_TRUE(contains(help, "--k arg (=1.0D)"));
  EXPECT_TRUE(contains(help, "--rel-tol arg (=1e-7)"));
  EXPECT_TRUE(contains(help, "--shard arg (=0/1)"));
  // The file may be given as --config=FILE too (it works, so it is documented).
  EXPECT_TRUE(contains(help, "--config FILE")) << help;
  // A switch says it takes true or false; the file's syntax is spelled out.
  EXPECT_TRUE(contains(help, "--dry-run [=true|false]")) << help;
  EXPECT_TRUE(contains(help, "no [sections]")) << help;
}

// The lists above are what the key tests cover: an option added to the parser must join them.
TEST(RunHelp, ListsNoOptionBeyondTheTestedKeys) {
  std::set<std::string> tested;
  for (const auto* keys : {&kStudyKeys, &kSearchKeys, &kRunKeys}) {
    tested.insert(keys->begin(), keys->end());
  }
  // Option lines start "  --name" or "  -h [ --name ]"; the usage line's --key=value is none.
  const std::regex option("^  (-[a-z] \\[ )?--([A-Za-z][A-Za-z-]*)");
  std::set<std::string> listed;
  std::istringstream help(run_help_text());
  for (std::string line; std::getline(help, line);) {
    std::smatch match;
    if (std::regex_search(line, match, option)) listed.insert(match[2].str());
  }
  EXPECT_EQ(listed, tested);
}

TEST(RunHelp, HelpSkipsValidationOfTheOtherValues) {
  for (const char* flag : {"--help", "-h"}) {
    const auto options = parse({flag, "--seed=not-a-number"});
    EXPECT_TRUE(options.help) << flag;
  }
}

}  // namespace
}  // namespace wordsens::cli
