// Every study key of `wordsens run` given on the command line lands, parsed, in its StudyConfig
// field. Values differ from the defaults so that a key that is dropped is noticed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/config.hpp"
#include "parse_helper.hpp"
#include "study/study.hpp"

namespace wordsens::cli {
namespace {

using testing::parse;
using V = std::vector<Index>;

TEST(StudyKeys, ExperimentsInCanonicalOrder) {
  EXPECT_EQ(parse({"--experiments=gen,ws"}).study.grid.experiments,
            (std::vector<Experiment>{Experiment::ws, Experiment::gen}));
  EXPECT_EQ(parse({"--experiments=gen"}).study.grid.experiments,
            std::vector<Experiment>{Experiment::gen});
}

TEST(StudyKeys, ModelsAndGenModelsInCanonicalOrderWithoutRepeats) {
  EXPECT_EQ(model_names(parse({"--models=raf,rf,raf"}).study.grid.models),
            (std::vector<std::string>{"rf", "raf"}));
  EXPECT_EQ(model_names(parse({"--models", "raf_relu, drf"}).study.grid.models),
            (std::vector<std::string>{"drf", "raf_relu"}));
  const auto options = parse({"--gen-models=raf_relu,rf"});
  EXPECT_EQ(model_names(options.study.grid.gen_models),
            (std::vector<std::string>{"rf", "raf_relu"}));
  EXPECT_EQ(options.study.grid.models.size(), 4u);  // untouched by gen-models
}

TEST(StudyKeys, IntegerGridsAcceptListsAndRanges) {
  EXPECT_EQ(parse({"--n=10:40:log3"}).study.grid.n, (V{10, 20, 40}));
  EXPECT_EQ(parse({"--n=8:64:log4"}).study.grid.n, (V{8, 16, 32, 64}));
  EXPECT_EQ(parse({"--n=50,5,1:9:lin5,5"}).study.grid.n, (V{1, 3, 5, 7, 9, 50}));
  EXPECT_EQ(parse({"--d=4:16:step6"}).study.grid.d, (V{4, 10, 16}));
  EXPECT_EQ(parse({"--gen-n=30,12"}).study.grid.gen_n, (V{12, 30}));
  EXPECT_EQ(parse({"--gen-d=32"}).study.grid.gen_d, (V{32}));
  EXPECT_EQ(parse({"--N=50,5"}).study.grid.N, (V{5, 50}));
  EXPECT_EQ(parse({"--layers=1:4:lin4"}).study.grid.layers, (V{1, 2, 3, 4}));
}

// `N` and `n` differ only in case: each must reach its own field.
TEST(StudyKeys, UpperAndLowerCaseNAreDifferentKeys) {
  const auto options = parse({"--N=7", "--n=30"});
  EXPECT_EQ(options.study.grid.N, (V{7}));
  EXPECT_EQ(options.study.grid.n, (V{30}));
}

TEST(StudyKeys, KMixesRelativeAndAbsoluteWidths) {
  EXPECT_EQ(parse({"--k=0.5D,100"}).study.grid.k,
            (std::vector<KItem>{KItem{true, 0.5, 0}, KItem{false, 0.0, 100}}));
  // Relative widths first, then absolute ones, each ascending and without repeats.
  EXPECT_EQ(parse({"--k=200,2D,0.5d,100:200:lin2,2D"}).study.grid.k,
            (std::vector<KItem>{KItem{true, 0.5, 0}, KItem{true, 2.0, 0}, KItem{false, 0.0, 100},
                                KItem{false, 0.0, 200}}));
}

TEST(StudyKeys, ActivationAndRfSampling) {
  EXPECT_EQ(parse({"--activation=tanh"}).study.activation, Activation::tanh);
  EXPECT_EQ(parse({"--rf-sampling=marginal"}).study.rf_sampling, RfSampling::marginal);
  EXPECT_EQ(parse({"--rf-sampling=full"}).study.rf_sampling, RfSampling::full);
  EXPECT_TRUE(parse({"--purpose=descriptive"}).study.descriptive);
  EXPECT_FALSE(parse({"--purpose=claims"}).study.descriptive);
}

TEST(StudyKeys, TrialsAndSeedAtTheirLimits) {
  EXPECT_EQ(parse({"--trials=7"}).study.grid.trials, 7u);
  EXPECT_EQ(parse({"--trials=1"}).study.grid.trials, 1u);
  EXPECT_EQ(parse({"--trials=10000000"}).study.grid.trials, 10000000u);
  EXPECT_EQ(parse({"--seed=0"}).study.seed, 0u);
  EXPECT_EQ(parse({"--seed=4294967295"}).study.seed, 4294967295u);
  EXPECT_EQ(parse({"--seed=20240206"}).study.seed, 20240206u);
}

TEST(StudyKeys, PositionsAreStoredInTheirCanonicalSpelling) {
  EXPECT_EQ(parse({"--positions=first"}).study.search.positions.to_string(), "first");
  EXPECT_EQ(parse({"--positions=random:3"}).study.search.positions.to_string(), "random:3");
  EXPECT_EQ(parse({"--positions=random:007"}).study.search.positions.to_string(), "random:7");
}

TEST(StudyKeys, WordsFractionsAndWordSets) {
  const auto options =
      parse({"--words=4,1,2:3:lin2", "--words-fraction=0.25,0.125,0.25", "--word-sets=random:05"});
  EXPECT_EQ(options.study.grid.words, (V{1, 2, 3, 4}));
  EXPECT_EQ(options.study.grid.words_fraction, (std::vector<double>{0.125, 0.25}));
  EXPECT_EQ(options.study.search.word_sets.to_string(), "random:5");
  EXPECT_EQ(parse({"--word-sets=greedy"}).study.search.word_sets.to_string(), "greedy");
  EXPECT_EQ(parse({"--words-fraction=1"}).study.grid.words_fraction, (std::vector<double>{1.0}));
}

// A fraction alone gives the numbers of changed words; `words` may then be empty.
TEST(StudyKeys, WordsMayBeEmptyWhenFractionsAreGiven) {
  const auto options = parse({"--words", "", "--words-fraction=0.5"});
  EXPECT_TRUE(options.study.grid.words.empty());
  EXPECT_EQ(options.study.grid.words_fraction, (std::vector<double>{0.5}));
}

// The marginal sampler is refused only for a ws study of rf with several words; these are not.
TEST(StudyKeys, MarginalSamplingWithSeveralWordsOutsideRfWs) {
  EXPECT_EQ(parse({"--rf-sampling=marginal", "--words=2", "--models=raf,drf"}).study.rf_sampling,
            RfSampling::marginal);
  EXPECT_EQ(parse({"--rf-sampling=marginal", "--words=2", "--experiments=gen"}).study.rf_sampling,
            RfSampling::marginal);
  EXPECT_EQ(parse({"--rf-sampling=marginal", "--words=1", "--models=rf"}).study.rf_sampling,
            RfSampling::marginal);
  // A fraction that gives m = ⌈0.1·n⌉ = 1 at every n changes one word only.
  EXPECT_EQ(parse({"--rf-sampling=marginal", "--words-fraction=0.1", "--n=5,10", "--models=rf"})
                .study.rf_sampling,
            RfSampling::marginal);
}

// Spaces around the fractions are allowed, as around the items of a grid.
TEST(StudyKeys, WordsFractionItemsMayHaveSpaces) {
  EXPECT_EQ(parse({"--words-fraction=0.5, 0.25"}).study.grid.words_fraction,
            (std::vector<double>{0.25, 0.5}));
}

TEST(StudyKeys, TrainingObjectiveDataAndSaveWitness) {
  EXPECT_EQ(parse({"--training=retrain"}).study.search.trainings,
            std::vector<Training>{Training::retrain});
  EXPECT_EQ(parse({"--training=retrain,finetune"}).study.search.trainings,
            (std::vector<Training>{Training::finetune, Training::retrain}));
  EXPECT_EQ(parse({"--objective=align"}).study.search.objectives,
            std::vector<HeadObjective>{HeadObjective::align});
  // The data source is checked when it is opened, not here: any spelling is kept as given.
  EXPECT_EQ(parse({"--data=embeddings:/data/glove.h5"}).study.data.to_string(),
            "embeddings:/data/glove.h5");
  EXPECT_TRUE(parse({"--save-witness"}).study.save_witness);
}

}  // namespace
}  // namespace wordsens::cli
