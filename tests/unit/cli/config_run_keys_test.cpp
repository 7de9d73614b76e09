// The run options of `wordsens run` (output, resume and scheduling switches, provenance): the
// ones left out of the configuration compared on resume.
#include <gtest/gtest.h>

#include "cli/config.hpp"
#include "parse_helper.hpp"

namespace wordsens::cli {
namespace {

using testing::parse;

TEST(RunKeys, HelpInLongAndShortForm) {
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_TRUE(parse({"-h"}).help);
}

TEST(RunKeys, OutputInLongAndShortForm) {
  EXPECT_EQ(parse({"--output=out/a.h5"}).output, "out/a.h5");
  EXPECT_EQ(parse({"--output", "b.h5"}).output, "b.h5");
  EXPECT_EQ(parse({"-o", "c.h5"}).output, "c.h5");
}

TEST(RunKeys, Switches) {
  const auto options = parse({"--overwrite", "--dry-run"});
  EXPECT_TRUE(options.overwrite);
  EXPECT_TRUE(options.dry_run);
}

TEST(RunKeys, WalltimeProgressAndShard) {
  const auto options = parse({"--walltime=3600.5", "--progress=0.25", "--shard=2/5"});
  EXPECT_EQ(options.walltime, 3600.5);
  EXPECT_EQ(options.progress_interval, 0.25);
  EXPECT_EQ(options.shard.index, 2u);
  EXPECT_EQ(options.shard.count, 5u);
  EXPECT_FALSE(options.shard.is_whole());
  EXPECT_EQ(parse({"--walltime=0"}).walltime, 0.0);
  EXPECT_TRUE(parse({"--shard=0/1"}).shard.is_whole());
}

// memory-per-rank: auto (0: the node's) or bytes, K, M, G, T being powers of 1024 as in Slurm's
// --mem; an optional B or iB.
TEST(RunKeys, MemoryPerRank) {
  EXPECT_EQ(parse({}).memory_per_rank, 0.0);
  EXPECT_EQ(parse({"--memory-per-rank=auto"}).memory_per_rank, 0.0);
  EXPECT_EQ(parse({"--memory-per-rank=4G"}).memory_per_rank, 4.0 * (1 << 30));
  EXPECT_EQ(parse({"--memory-per-rank=1.5GiB"}).memory_per_rank, 1.5 * (1 << 30));
  EXPECT_EQ(parse({"--memory-per-rank=512m"}).memory_per_rank, 512.0 * (1 << 20));
  EXPECT_EQ(parse({"--memory-per-rank=2T"}).memory_per_rank, 2.0 * 1024 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse({"--memory-per-rank=123456"}).memory_per_rank, 123456.0);
}

// The results file records how it was made: argv as given, after "wordsens".
TEST(RunKeys, CommandLineIsArgvJoinedBySpaces) {
  EXPECT_EQ(parse({"--n=10", "-o", "x.h5", "--dry-run"}).command_line,
            "wordsens run --n=10 -o x.h5 --dry-run");
}

}  // namespace
}  // namespace wordsens::cli
