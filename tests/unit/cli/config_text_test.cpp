// config_text is what a resumed run must match: sorted `key = value` lines that depend on the
// configuration only, not on how it was spelled or where it was given.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/config.hpp"
#include "parse_helper.hpp"
#include "study/config_text.hpp"

namespace wordsens::cli {
namespace {

using testing::contains;
using testing::parse;
using testing::TempFile;

std::string text_of(const std::vector<std::string>& args) { return config_text(parse(args)); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void expect_sorted_key_value_lines(const std::string& text) {
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  std::string previous_key;
  for (const auto& line : lines_of(text)) {
    const auto equals = line.find(" = ");
    ASSERT_NE(equals, std::string::npos) << line;
    const std::string key = line.substr(0, equals);
    EXPECT_LT(previous_key, key) << "keys out of order or repeated:\n" << text;
    previous_key = key;
  }
}

TEST(ConfigText, DefaultsAreSortedKeyValueLines) {
  const std::string text = text_of({});
  expect_sorted_key_value_lines(text);
  for (const char* line :
       {"experiments = ws\n", "models = rf,drf,raf,raf_relu\n", "n = 10,20,40\n", "d = 8\n",
        "gen-n = 10,20,40\n", "k = 1D\n", "seed = 1\n", "data = synthetic\n"}) {
    EXPECT_TRUE(contains(text, std::string("\n") + line)) << line << "in\n" << text;
  }
}

// Resuming with another output, deadline or progress rate is the same run.
TEST(ConfigText, RunOptionsAreLeftOut) {
  const std::string text =
      text_of({"-o", "other.h5", "--overwrite", "--dry-run", "--walltime=60", "--progress=1",
               "--memory-per-rank=4G", "--format=json", "--calibration=none"});
  EXPECT_EQ(text, text_of({}));
  for (const char* key : {"output", "overwrite", "dry-run", "walltime", "progress", "shard",
                          "memory-per-rank", "format", "calibration"}) {
    EXPECT_FALSE(contains(text, std::string("\n") + key + " = ")) << key;
  }
}

TEST(ConfigText, ShardLineAtItsSortedPlace) {
  const std::string whole = text_of({});
  const std::string sharded = text_of({"--shard=1/4"});
  expect_sorted_key_value_lines(sharded);
  EXPECT_TRUE(contains(sharded, "\nshard = 1/4\n")) << sharded;
  // Removing the shard line gives back the text of the whole run.
  std::string without = sharded;
  without.erase(without.find("shard = 1/4\n"), std::string("shard = 1/4\n").size());
  EXPECT_EQ(without, whole);
  EXPECT_NE(text_of({"--shard=0/4"}), sharded);
  EXPECT_EQ(text_of({"--shard=0/1"}), whole);
}

TEST(ConfigText, SpellingsOfOneConfigurationAgree) {
  EXPECT_EQ(text_of({"--models=raf,rf"}), text_of({"--models=rf,raf"}));
  EXPECT_EQ(text_of({"--models=rf, raf,rf"}), text_of({"--models=rf,raf"}));
  EXPECT_EQ(text_of({"--experiments=gen,ws"}), text_of({"--experiments=ws,gen"}));
  EXPECT_EQ(text_of({"--n=10:40:log3"}), text_of({"--n=40,10,20,10"}));
  EXPECT_EQ(text_of({"--k=1.0D"}), text_of({"--k=1d"}));
  EXPECT_EQ(text_of({"--k=100,0.5D"}), text_of({"--k=0.50D,100:100:lin1"}));
  EXPECT_EQ(text_of({"--seed=007"}), text_of({"--seed=7"}));
  EXPECT_EQ(text_of({"--rel-tol=0.001"}), text_of({"--rel-tol=1e-3"}));
  EXPECT_EQ(text_of({"--positions=random:03"}), text_of({"--positions=random:3"}));
  EXPECT_EQ(text_of({"--guided-start=no"}), text_of({"--guided-start=false"}));
  EXPECT_EQ(text_of({"--rf-sampling=full"}), text_of({}));
  // gen-models, gen-n and gen-d spelled out as the values they default to
  EXPECT_EQ(text_of({"--gen-models=rf,drf,raf,raf_relu", "--gen-n=10,20,40", "--gen-d=8"}),
            text_of({}));
}

TEST(ConfigText, FileAndCommandLineAgree) {
  const TempFile ini("models = rf,raf\nn = 8:64:log4\nseed = 12\nwords = 1,2\n");
  EXPECT_EQ(config_text(parse({ini.path()})),
            text_of({"--models=raf,rf", "--n=8,16,32,64", "--seed=12", "--words=2,1"}));
}

TEST(ConfigText, DifferentConfigurationsDiffer) {
  const std::string base = text_of({});
  for (const auto& args :
       {std::vector<std::string>{"--seed=2"}, std::vector<std::string>{"--models=rf"},
        std::vector<std::string>{"--n=10,20"}, std::vector<std::string>{"--k=1D,2D"},
        std::vector<std::string>{"--gen-n=10"}, std::vector<std::string>{"--trials=4"},
        std::vector<std::string>{"--save-witness"},
        std::vector<std::string>{"--rf-sampling=marginal"}}) {
    EXPECT_NE(text_of(args), base) << args.front();
  }
  EXPECT_NE(text_of({"--models=rf,raf"}), text_of({"--models=rf,drf"}));
}

// Files written before several changed words existed have no words keys, and still resume.
TEST(ConfigText, WordsKeysOnlyWithSeveralChangedWords) {
  const std::string single = text_of({"--word-sets=greedy"});
  EXPECT_EQ(single, text_of({}));
  EXPECT_FALSE(contains(single, "words"));
  const std::string multi = text_of({"--words=1,2", "--word-sets=greedy"});
  expect_sorted_key_value_lines(multi);
  EXPECT_TRUE(contains(multi, "\nwords = 1,2\n")) << multi;
  EXPECT_TRUE(contains(multi, "\nwords-fraction = \n")) << multi;
  EXPECT_TRUE(contains(multi, "\nword-sets = greedy\n")) << multi;
  EXPECT_TRUE(contains(text_of({"--words-fraction=0.5,0.25"}), "\nwords-fraction = 0.25,0.5\n"));
}

TEST(ConfigText, RfSamplingAndPurposeOnlyWhenNotTheDefault) {
  EXPECT_FALSE(contains(text_of({}), "rf-sampling"));
  EXPECT_TRUE(contains(text_of({"--rf-sampling=marginal"}), "\nrf-sampling = marginal\n"));
  // So is the purpose: files of every study written before the key existed still resume.
  EXPECT_FALSE(contains(text_of({}), "purpose"));
  EXPECT_EQ(text_of({"--purpose=claims"}), text_of({}));
  EXPECT_TRUE(contains(text_of({"--purpose=descriptive"}), "\npurpose = descriptive\n"));
}

// rf-sampling changes nothing but rf's weights: without rf among the models the study runs, a
// marginal study runs the same tasks as a full one, and the two must resume each other.
TEST(ConfigText, RfSamplingOnlyWithAModelItAppliesTo) {
  EXPECT_EQ(text_of({"--models=raf,drf", "--rf-sampling=marginal"}), text_of({"--models=raf,drf"}));
  // gen-models of a study without gen run nothing.
  EXPECT_EQ(text_of({"--models=raf", "--gen-models=rf", "--rf-sampling=marginal"}),
            text_of({"--models=raf", "--gen-models=rf"}));
  // rf in the ws models or in the gen models of a gen study: named.
  EXPECT_TRUE(contains(text_of({"--models=rf,raf", "--rf-sampling=marginal"}),
                       "\nrf-sampling = marginal\n"));
  EXPECT_TRUE(contains(text_of({"--experiments=ws,gen", "--models=raf", "--gen-models=rf",
                                "--rf-sampling=marginal"}),
                       "\nrf-sampling = marginal\n"));
  EXPECT_TRUE(contains(
      text_of({"--experiments=gen", "--models=raf", "--gen-models=rf", "--rf-sampling=marginal"}),
      "\nrf-sampling = marginal\n"));
}

// The text of a study with rf and the marginal sampler, as the versions before wrote it (results
// files store it and a resumed run must give it again, byte for byte).
TEST(ConfigText, MarginalRfTextIsTheOneFilesStore) {
  EXPECT_EQ(text_of({"--models=rf", "--n=4", "--d=2", "--trials=1", "--rf-sampling=marginal"}),
            "N = 20\n"
            "activation = relu\n"
            "budget-check = 0\n"
            "d = 2\n"
            "data = synthetic\n"
            "experiments = ws\n"
            "gen-d = 2\n"
            "gen-models = rf\n"
            "gen-n = 4\n"
            "guided-start = true\n"
            "k = 1D\n"
            "layers = 2\n"
            "max-evals = 300\n"
            "min-total-sphere-starts = auto\n"
            "models = rf\n"
            "n = 4\n"
            "near-origin-starts = 1\n"
            "objective = loss,align\n"
            "positions = all\n"
            "rel-tol = 1e-07\n"
            "rf-sampling = marginal\n"
            "save-witness = false\n"
            "screen-points = 64\n"
            "seed = 1\n"
            "sphere-starts = 2\n"
            "training = finetune,retrain\n"
            "trials = 1\n"
            "upper-bound = true\n");
}

// Switches written `=true` / `=false` give the text of the plain switch and of its absence.
TEST(ConfigText, SwitchValuesGiveTheSameText) {
  EXPECT_EQ(text_of({"--save-witness=true"}), text_of({"--save-witness"}));
  EXPECT_EQ(text_of({"--save-witness=false"}), text_of({}));
  EXPECT_TRUE(contains(text_of({"--save-witness"}), "\nsave-witness = true\n"));
  EXPECT_TRUE(contains(text_of({}), "\nsave-witness = false\n"));
}

// The text a results file stores plans the same tasks (stored texts are read as INI files).
TEST(ConfigText, StoredTextPlansTheTasksOfItsConfiguration) {
  for (const auto& args :
       {std::vector<std::string>{}, std::vector<std::string>{"--save-witness", "--words=1,2"},
        std::vector<std::string>{"--models=rf", "--rf-sampling=marginal", "--shard=1/3"}}) {
    const auto options = parse(args);
    EXPECT_EQ(plan_of_config_text(config_text(options)).size(), plan_tasks(options.study).size());
  }
  EXPECT_THROW((void)plan_of_config_text("[study]\ntrials = 3\n"), std::exception);
}

// heads changes mhraf and block only, the mask the attention models only: without one of them in
// the study the text does not name the key, so that studies that run the same tasks resume each
// other; with one, a different value is a different study.
TEST(ConfigText, HeadsAndMaskOnlyWithAModelTheyApplyTo) {
  EXPECT_FALSE(contains(text_of({}), "heads"));
  EXPECT_EQ(text_of({"--heads=2"}), text_of({}));
  EXPECT_TRUE(contains(text_of({"--models=raf,mhraf"}), "\nheads = 4\n"));
  EXPECT_NE(text_of({"--models=block", "--heads=2"}), text_of({"--models=block"}));
  EXPECT_FALSE(contains(text_of({}), "mask"));
  EXPECT_EQ(text_of({"--mask=none"}), text_of({}));
  EXPECT_TRUE(contains(text_of({"--mask=causal"}), "\nmask = causal\n"));
  EXPECT_EQ(text_of({"--models=rf,drf", "--mask=causal"}), text_of({"--models=rf,drf"}));
}

// mlp-width changes block only, and is named only when not the default (4d, the width every
// block ran before the key existed), so that those files resume and studies without a block
// that differ in it are one study.
TEST(ConfigText, MlpWidthOnlyWithABlockAndWhenNotTheDefault) {
  EXPECT_FALSE(contains(text_of({"--models=block"}), "mlp-width"));
  EXPECT_EQ(text_of({"--models=block", "--mlp-width=4d"}), text_of({"--models=block"}));
  EXPECT_EQ(text_of({"--models=block", "--mlp-width=4.0d"}), text_of({"--models=block"}));
  EXPECT_TRUE(contains(text_of({"--models=block", "--mlp-width=8d,2d"}), "\nmlp-width = 2d,8d\n"));
  EXPECT_EQ(text_of({"--models=rf,mhraf", "--mlp-width=2d"}), text_of({"--models=rf,mhraf"}));
}

}  // namespace
}  // namespace wordsens::cli
