// The INI file of `wordsens run`: its syntax, the run keys it may hold, and the command line
// winning over it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/config.hpp"
#include "parse_helper.hpp"

namespace wordsens::cli {
namespace {

using testing::parse;
using testing::TempFile;
using V = std::vector<Index>;

TEST(ConfigFile, PathIsRecordedAndKeysAreRead) {
  const TempFile ini("n = 5,7\nseed = 9\n");
  const auto options = parse({ini.path()});
  EXPECT_EQ(options.config_path, ini.path());
  EXPECT_EQ(options.study.grid.n, (V{5, 7}));
  EXPECT_EQ(options.study.seed, 9u);
  EXPECT_EQ(options.command_line, "wordsens run " + ini.path());
}

TEST(ConfigFile, CommentsBlankLinesAndSpacesAreIgnored) {
  const TempFile ini(
      "# a study ≥ 2 words\n"
      "\n"
      "   models   =   raf , rf   \n"
      "\tk\t=\t2D\t\n"
      "layers=3\n");
  const auto options = parse({ini.path()});
  EXPECT_EQ(model_names(options.study.grid.models), (std::vector<std::string>{"rf", "raf"}));
  EXPECT_EQ(options.study.grid.k, (std::vector<KItem>{KItem{true, 2.0, 0}}));
  EXPECT_EQ(options.study.grid.layers, (V{3}));
}

// A file written on Windows must read the same.
TEST(ConfigFile, CrLfLineEndings) {
  const TempFile ini("n = 5\r\nactivation = tanh\r\ntrials = 4\r\n");
  const auto options = parse({ini.path()});
  EXPECT_EQ(options.study.grid.n, (V{5}));
  EXPECT_EQ(options.study.activation, Activation::tanh);
  EXPECT_EQ(options.study.grid.trials, 4u);
}

TEST(ConfigFile, EmptyFileGivesTheDefaults) {
  const TempFile ini("");
  EXPECT_EQ(config_text(parse({ini.path()})), config_text(parse({})));
}

TEST(ConfigFile, RunKeysMayBeInTheFile) {
  const TempFile ini(
      "output = from_file.h5\n"
      "overwrite = true\n"
      "dry-run = true\n"
      "walltime = 60\n"
      "shard = 1/3\n"
      "progress = 2.5\n");
  const auto options = parse({ini.path()});
  EXPECT_EQ(options.output, "from_file.h5");
  EXPECT_TRUE(options.overwrite);
  EXPECT_TRUE(options.dry_run);
  EXPECT_EQ(options.walltime, 60.0);
  EXPECT_EQ(options.shard.to_string(), "1/3");
  EXPECT_EQ(options.progress_interval, 2.5);
}

// A switch in the file takes true or false, as on the command line (`--dry-run=false`).
TEST(ConfigFile, SwitchesTakeTrueOrFalse) {
  const TempFile off("overwrite = false\ndry-run = false\nsave-witness = false\n");
  const auto options = parse({off.path()});
  EXPECT_FALSE(options.overwrite);
  EXPECT_FALSE(options.dry_run);
  EXPECT_FALSE(options.study.save_witness);
  const TempFile on("save-witness = true\n");
  EXPECT_TRUE(parse({on.path()}).study.save_witness);
  EXPECT_EQ(config_text(parse({on.path()})), config_text(parse({"--save-witness"})));
  // The command line wins, either way.
  EXPECT_FALSE(parse({on.path(), "--save-witness=false"}).study.save_witness);
  EXPECT_TRUE(parse({off.path(), "--dry-run"}).dry_run);
  EXPECT_TRUE(parse({off.path(), "--overwrite=true"}).overwrite);
}

TEST(ConfigFile, CommandLineWinsOverTheFile) {
  const TempFile ini("n = 5\nseed = 9\noutput = from_file.h5\nguided-start = true\n");
  for (const auto& args :
       {std::vector<std::string>{ini.path(), "--n=7", "-o", "cli.h5", "--guided-start=false"},
        std::vector<std::string>{"--n=7", "-o", "cli.h5", "--guided-start=false", ini.path()}}) {
    const auto options = parse(args);
    EXPECT_EQ(options.study.grid.n, (V{7}));
    EXPECT_EQ(options.output, "cli.h5");
    EXPECT_FALSE(options.study.search.guided_start);
    EXPECT_EQ(options.study.seed, 9u);  // from the file: not given on the command line
    EXPECT_EQ(options.config_path, ini.path());
  }
}

// The command line wins even when the file's value would be refused on its own.
TEST(ConfigFile, CommandLineValueReplacesABadFileValue) {
  const TempFile ini("seed = -1\n");
  EXPECT_EQ(parse({ini.path(), "--seed=3"}).study.seed, 3u);
}

TEST(ConfigFile, AnEmptyValueInTheFileClearsAnOptionalGrid) {
  const TempFile ini("gen-n =\nwords =\nwords-fraction = 0.5\n");
  const auto options = parse({ini.path()});
  EXPECT_TRUE(options.study.grid.gen_n.empty());
  EXPECT_TRUE(options.study.grid.words.empty());
}

TEST(ConfigFile, HelpWithAFile) {
  const TempFile ini("n = 5\n");
  EXPECT_TRUE(parse({ini.path(), "--help"}).help);
}

// The help is what someone asks for when the file is the problem: it is printed without it.
TEST(ConfigFile, HelpWithAMissingOrBadFile) {
  EXPECT_TRUE(parse({"/nonexistent/wordsens.ini", "--help"}).help);
  const TempFile bad("n = 5\nbogus = 1\n");
  EXPECT_TRUE(parse({bad.path(), "-h"}).help);
}

}  // namespace
}  // namespace wordsens::cli
