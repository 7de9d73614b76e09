// Bad values of the study and run keys: each is refused with a one-line InputError that names
// the key or the value, before any file is touched.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "cli/config.hpp"
#include "parse_helper.hpp"

namespace wordsens::cli {
namespace {

using testing::expect_usage_error;
using testing::expect_usage_line;
using testing::option;
using testing::parse;
using testing::TempFile;

TEST(ValueErrors, UnknownNamesInLists) {
  expect_usage_error({"--experiments=ws,train"}, {"experiments = 'ws,train'", "'train'"});
  expect_usage_error({"--models=rf,cnn"}, {"models = 'rf,cnn'", "unknown name 'cnn'"});
  expect_usage_error({"--gen-models=raf,bert"}, {"gen-models = 'raf,bert'", "'bert'"});
  expect_usage_error({"--training=pretrain"}, {"training = 'pretrain'", "'pretrain'"});
  expect_usage_error({"--objective=mse"}, {"objective = 'mse'", "'mse'"});
  // Names are exact: no case folding.
  expect_usage_error({"--models=RF"}, {"models = 'RF'"});
}

TEST(ValueErrors, EmptyLists) {
  for (const char* key : {"experiments", "models", "training", "objective"}) {
    expect_usage_error(option(key, ""), {std::string(key) + " = ''", "empty list"});
  }
  expect_usage_error({"--models=rf,,raf"}, {"models = 'rf,,raf'", "unknown name ''"});
}

TEST(ValueErrors, MalformedGridsNameTheirKey) {
  for (const char* key : {"n", "d", "gen-n", "gen-d", "N", "layers", "words"}) {
    const std::string k = key;
    expect_usage_error({"--" + k + "=abc"}, {k + " = 'abc'", "not an integer"});
    expect_usage_error({"--" + k + "=1.5"}, {k + " = '1.5'", "not an integer"});
    expect_usage_error({"--" + k + "=2,,3"}, {k + " = '2,,3'", "empty item"});
    expect_usage_error({"--" + k + "=2,"}, {k + " = '2,'", "empty item"});
    expect_usage_error({"--" + k + "=0"}, {k + " = '0'", "value 0 out of range [1, "});
  }
  // Grids that are not optional refuse an empty value.
  for (const char* key : {"n", "d", "N", "layers"}) {
    expect_usage_error(option(key, ""), {std::string(key) + " = ''", "empty grid"});
  }
}

TEST(ValueErrors, MalformedRanges) {
  expect_usage_error({"--n=10:20"}, {"n = '10:20'", "lo:hi:logM"});
  expect_usage_error({"--n=1:2:3:4"}, {"n = '1:2:3:4'", "lo:hi:logM"});
  expect_usage_error({"--n=a:b:lin2"}, {"n = 'a:b:lin2'", "range bounds must be integers"});
  expect_usage_error({"--n=20:10:lin3"}, {"n = '20:10:lin3'", "lower bound exceeds"});
  expect_usage_error({"--n=10:20:cube3"}, {"n = '10:20:cube3'", "range kind"});
  expect_usage_error({"--n=10:20:log0"}, {"n = '10:20:log0'", "log needs a positive"});
  expect_usage_error({"--n=10:20:step0"}, {"n = '10:20:step0'", "step needs a positive"});
  expect_usage_error({"--n=10:20:lin1"}, {"n = '10:20:lin1'", "one point needs lo == hi"});
  expect_usage_error({"--n=1:100:lin100001"}, {"n = '1:100:lin100001'", "too many points"});
  expect_usage_error({"--d=0:10:log3"}, {"d = '0:10:log3'", "log range needs lo >= 1"});
}

TEST(ValueErrors, GridValuesBeyondTheStudyLimits) {
  expect_usage_error({"--n=100001"}, {"n = '100001'", "out of range [1, 100000]"});
  expect_usage_error({"--d=10:200000:log3"}, {"d = '10:200000:log3'", "value 200000"});
  expect_usage_error({"--gen-d=100001"}, {"gen-d = '100001'", "[1, 100000]"});
  expect_usage_error({"--N=1000001"}, {"N = '1000001'", "[1, 1000000]"});
  expect_usage_error({"--layers=65"}, {"layers = '65'", "[1, 64]"});
  expect_usage_error({"--words=100001"}, {"words = '100001'", "[1, 100000]"});
  expect_usage_error({"--n=-3"}, {"n = '-3'"});
}

TEST(ValueErrors, BadWidths) {
  for (const char* bad : {"0D", "-1D", "xD", "2e6D", "nanD", "D"}) {
    expect_usage_error(option("k", bad), {std::string("k = '") + bad + "'", "<factor>D"});
  }
  expect_usage_error({"--k=1.5"}, {"k = '1.5'", "not an integer"});
  expect_usage_error({"--k=0"}, {"k = '0'", "out of range"});
  expect_usage_error({"--k=2147483648"}, {"k = '2147483648'", "[1, 2147483647]"});
  expect_usage_error(option("k", ""), {"k = ''", "empty grid"});
  expect_usage_error({"--k=1D,,2"}, {"k = ''"});
}

TEST(ValueErrors, ActivationAndRfSampling) {
  expect_usage_error({"--activation=sigmoid"}, {"activation = 'sigmoid'", "relu, tanh or gelu"});
  // GELU is not 1-Lipschitz: rf's and drf's certified bounds cannot take it.
  expect_usage_error({"--activation=gelu"}, {"activation = 'gelu'", "block's MLP only"});
  expect_usage_error(
      {"--activation=gelu", "--models=block", "--experiments=ws,gen", "--gen-models=rf"},
      {"activation = 'gelu'"});
  // gen-models of a study without gen run nothing: block alone takes gelu.
  EXPECT_EQ(parse({"--activation=gelu", "--models=block", "--gen-models=rf"}).study.activation,
            Activation::gelu);
  expect_usage_error({"--activation=ReLU"}, {"activation = 'ReLU'"});
  expect_usage_error({"--rf-sampling=partial"}, {"rf-sampling = 'partial'", "full or marginal"});
  expect_usage_error({"--purpose=map"}, {"purpose = 'map'", "claims or descriptive"});
}

TEST(ValueErrors, HeadsAndMask) {
  expect_usage_error({"--heads=0"}, {"heads = '0'"});
  expect_usage_error({"--heads=two"}, {"heads = 'two'"});
  expect_usage_error({"--mask=upper"}, {"mask = 'upper'", "none or causal"});
  expect_usage_error({"--mlp-width=0"}, {"mlp-width = '0'"});
  expect_usage_error({"--mlp-width=4x"}, {"mlp-width = '4x'"});
  expect_usage_error({"--mlp-width=1.0D"}, {"mlp-width = '1.0D'", "multiple of d"});
}

TEST(ValueErrors, TrialsOutOfRange) {
  expect_usage_line({"--trials=0"}, "trials = '0': expected an integer in [1, 10000000]");
  expect_usage_line({"--trials=-4"}, "trials = '-4'");
  expect_usage_line({"--trials=10000001"}, "trials = '10000001'");
  expect_usage_line({"--trials=many"}, "trials = 'many': expected an integer");
}

TEST(ValueErrors, ExtensionsByMoreTrials) {
  expect_usage_error({"--first-trial=-1"}, {"first-trial = '-1'", "[0, 10000000]"});
  expect_usage_error({"--max-trials=-2"}, {"max-trials = '-2'", "[0, 10000000]"});
  expect_usage_error({"--max-trials=10000001"}, {"max-trials = '10000001'"});
  expect_usage_error({"--max-trials=+4"}, {"max-trials = '+4'"});
  // Without max-trials, trials of an extension would share the first batch's random streams.
  expect_usage_error({"--first-trial=5"}, {"first-trial = '5'", "needs max-trials"});
  expect_usage_error({"--select=model"}, {"select: 'model'", "not axis:value"});
  expect_usage_error({"--select=size:3"}, {"select: 'size:3'", "unknown axis 'size'"});
  expect_usage_error({"--select=d:0"}, {"select: 'd:0'", "not a positive integer"});
  expect_usage_error({"--select=d:8,d:16"}, {"select: 'd:8,d:16'", "named twice"});
}

TEST(ValueErrors, SeedOutsideUnsigned32Bits) {
  for (const char* bad :
       {"-1", "4294967296", "99999999999999999999", "abc", "1.5", "+1", "0x10", "", "1 "}) {
    expect_usage_error(option("seed", bad),
                       {std::string("seed = '") + bad + "'", "[0, 4294967295]"});
  }
}

TEST(ValueErrors, BadPositions) {
  for (const char* bad : {"some", "random:0", "random:", "random:x", "random:-2", "random", ""}) {
    expect_usage_line(option("positions", bad), std::string("positions = '") + bad + "'",
                      {"all, first or random:m"});
  }
}

TEST(ValueErrors, BadDataSource) {
  // Refused while parsing, before any file is looked at.
  expect_usage_error(option("data", "glove.h5"),
                     {"data = 'glove.h5'", "expected synthetic or embeddings:<path>"});
  expect_usage_error(option("data", "embeddings:"),
                     {"data = 'embeddings:'", "expected embeddings:<path>"});
}

TEST(ValueErrors, BadWordSets) {
  for (const char* bad : {"best", "random:0", "random", "random:2x", "all"}) {
    expect_usage_line(option("word-sets", bad), std::string("word-sets = '") + bad + "'",
                      {"first, random:r"});
  }
}

TEST(ValueErrors, BadWordFractions) {
  for (const char* bad : {"0", "1.5", "-0.5", "abc", "nan", "inf", "1/2"}) {
    expect_usage_error(option("words-fraction", bad),
                       {std::string("words-fraction = '") + bad + "'", "(0, 1]"});
  }
  for (const char* bad : {"0.5,,0.25", ",0.5", "0.5,", "0.5, "}) {
    expect_usage_error(option("words-fraction", bad),
                       {std::string("words-fraction = '") + bad + "'", "empty item"});
  }
}

TEST(ValueErrors, NoNumberOfChangedWords) {
  expect_usage_error(option("words", ""), {"words and words-fraction are both empty"});
  expect_usage_error({"--words", "", "--words-fraction", ""}, {"words and words-fraction"});
}

// The marginal sampler draws one word's block: an rf ws study with m >= 2 cannot use it.
TEST(ValueErrors, MarginalSamplingWithSeveralWords) {
  const std::vector<std::string> fragments{"rf-sampling = marginal", "words >= 2"};
  expect_usage_error({"--rf-sampling=marginal", "--words=1,2"}, fragments);
  expect_usage_error({"--rf-sampling=marginal", "--models=rf", "--words=4"}, fragments);
  expect_usage_error({"--rf-sampling=marginal", "--experiments=ws,gen", "--words-fraction=0.5"},
                     fragments);
  // 0.1 gives m = 1 at n = 10 but m = 2 at n = 20.
  expect_usage_error({"--rf-sampling=marginal", "--words-fraction=0.1", "--n=10,20"}, fragments);
}

TEST(ValueErrors, BadShard) {
  for (const char* bad : {"2/2", "0/0", "1", "a/b", "-1/2", "1/2/3", "/2", "1/", ""}) {
    expect_usage_error(option("shard", bad), {std::string("shard = '") + bad + "'", "0 <= i < N"});
  }
}

TEST(ValueErrors, EmptyOutput) {
  expect_usage_line(option("output", ""), "output = '': expected a file name");
  expect_usage_line({"-o", ""}, "output = ''");
}

TEST(ValueErrors, WalltimeAndProgress) {
  for (const char* bad : {"-1", "nan", "soon", "+5", " 5", "5s"}) {
    expect_usage_line(option("walltime", bad), std::string("walltime = '") + bad + "'",
                      {"seconds >= 0"});
  }
  for (const char* bad : {"0", "-2", "nan", "often", "+1"}) {
    expect_usage_line(option("progress", bad), std::string("progress = '") + bad + "'",
                      {"seconds > 0"});
  }
  EXPECT_EQ(parse({"--walltime=1e3", "--progress=0.5"}).walltime, 1000.0);
  for (const char* bad : {"0", "-1G", "lots", "4Q", "1.5.2G", "G", "4GG", "nan"}) {
    expect_usage_line(option("memory-per-rank", bad),
                      std::string("memory-per-rank = '") + bad + "'", {"auto, or bytes"});
  }
}

// `--key=` with nothing after '=' is `--key ""`: the key's own check names it (boost's message
// about the equal sign named no value). An optional list takes it as empty.
TEST(ValueErrors, EmptyValueAfterTheEqualsSign) {
  expect_usage_line({"--trials="}, "trials = '': expected an integer in [1, 10000000]");
  expect_usage_line({"--seed="}, "seed = ''");
  expect_usage_line({"--max-evals="}, "max-evals = ''");
  expect_usage_line({"--n="}, "n = '': empty grid");
  expect_usage_line({"--models="}, "models = '': empty list");
  expect_usage_line({"--rel-tol="}, "rel-tol = ''");
  expect_usage_line({"--guided-start="}, "guided-start = '': expected true or false");
  expect_usage_line({"--walltime="}, "walltime = ''");
  expect_usage_line({"--output="}, "output = ''");
  expect_usage_line({"--shard="}, "shard = ''");
  expect_usage_line({"--dry-run="}, "dry-run = '': expected true or false",
                    {"--dry-run alone is true"});
  expect_usage_line({"--config="}, "config = '': expected the path of a configuration file");
  EXPECT_EQ(config_text(parse({"--gen-models="})), config_text(parse(option("gen-models", ""))));
  EXPECT_TRUE(parse({"--gen-n="}).study.grid.gen_n.empty());
}

// Every integer key refuses a '+' sign and, on the command line, spaces around the digits; the
// INI reader drops the spaces around every value, so `key =  5 ` is key = 5 there.
TEST(ValueErrors, IntegersTakeNoSignAndNoSpaces) {
  for (const char* key : {"trials", "seed", "max-evals", "sphere-starts", "near-origin-starts",
                          "screen-points", "min-total-sphere-starts", "budget-check"}) {
    const std::string k = key;
    const std::string value = k == "budget-check" ? "2" : "5";
    SCOPED_TRACE(k);
    for (const std::string& bad :
         {"+" + value, " " + value, value + " ", value + ".0", "0x" + value}) {
      expect_usage_line(option(k, bad), k + " = '" + bad + "': expected");
      const TempFile ini(k + " = " + bad + "\n");
      if (bad.front() == ' ' || bad.back() == ' ') {
        // Trimmed by the INI reader: the same as the plain value.
        EXPECT_EQ(config_text(parse({ini.path()})), config_text(parse(option(k, value))));
      } else {
        expect_usage_line({ini.path()}, ini.path() + ":1: " + k + " = '" + bad + "'");
      }
    }
  }
  // The grids take no sign either (their items are trimmed: `n = 10, 20` is a list).
  expect_usage_line({"--n=+5"}, "n = '+5': not an integer");
  expect_usage_line({"--layers=+2"}, "layers = '+2'");
}

// Every key refuses a bad value with one line that starts with the key as written: `--key=` on
// the command line gives "key = '…'", and the file's "<file>:<line>: key = '…'".
TEST(ValueErrors, EveryMessageStartsWithTheKey) {
  const std::vector<std::pair<std::string, std::string>> bad{{"experiments", "train"},
                                                             {"models", "cnn"},
                                                             {"gen-models", "bert"},
                                                             {"n", "x"},
                                                             {"d", "0"},
                                                             {"gen-n", "x"},
                                                             {"gen-d", "0"},
                                                             {"k", "0D"},
                                                             {"N", "-1"},
                                                             {"layers", "65"},
                                                             {"activation", "sigmoid"},
                                                             {"rf-sampling", "partial"},
                                                             {"trials", "0"},
                                                             {"seed", "-1"},
                                                             {"positions", "some"},
                                                             {"words", "0"},
                                                             {"words-fraction", "2"},
                                                             {"word-sets", "best"},
                                                             {"training", "pretrain"},
                                                             {"objective", "mse"},
                                                             {"data", "glove.h5"},
                                                             {"save-witness", "maybe"},
                                                             {"purpose", "map"},
                                                             {"max-evals", "0"},
                                                             {"rel-tol", "1"},
                                                             {"sphere-starts", "-1"},
                                                             {"near-origin-starts", "x"},
                                                             {"guided-start", "maybe"},
                                                             {"screen-points", "100001"},
                                                             {"min-total-sphere-starts", "Auto"},
                                                             {"upper-bound", "2"},
                                                             {"budget-check", "1"},
                                                             {"output", ""},
                                                             {"overwrite", "maybe"},
                                                             {"dry-run", "maybe"},
                                                             {"walltime", "-1"},
                                                             {"shard", "2/2"},
                                                             {"progress", "0"},
                                                             {"memory-per-rank", "lots"}};
  for (const auto& [key, value] : bad) {
    const std::string start = key + " = '" + value + "'";
    expect_usage_line(option(key, value), start);
    const TempFile ini("# line 1\n" + key + " = " + value + "\n");
    expect_usage_line({ini.path()}, ini.path() + ":2: " + start);
  }
}

}  // namespace
}  // namespace wordsens::cli
