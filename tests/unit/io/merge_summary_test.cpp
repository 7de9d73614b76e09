// Merge of shard files equals the unsharded file; summaries equal a direct computation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "io/format/summary_stats.hpp"
#include "io/results_file.hpp"
#include "io_test_support.hpp"

namespace wordsens::io {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): test helpers

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = scratch_dir("merge"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A file of `config` whose task table is `tasks` (its plan), as a run of shard `shard` of
  // `shards` leaves it: the tasks whose id % shards == shard (all when shards == 1) done, in a
  // shuffled order.
  void write_shard(const std::string& name, const std::vector<TaskSpec>& tasks, int shard,
                   int shards, const std::string& config) {
    std::vector<TaskSpec> mine;
    for (const auto& t : tasks) {
      if (static_cast<int>(t.task_id) % shards == shard) mine.push_back(t);
    }
    auto file = ResultsFile::create(path(name), provenance(config, true), tasks, false);
    std::mt19937 rng(static_cast<unsigned>(shard + 17));
    std::shuffle(mine.begin(), mine.end(), rng);
    for (const auto& t : mine) append_task(file, t);
    file.write_summaries();
  }
  std::filesystem::path dir_;
};

// `config` as shard `shard` of `shards` stores it (with its run's keys).
std::string config_with_shard(const std::string& config, int shard, int shards) {
  return config + "shard = " + std::to_string(shard) + "/" + std::to_string(shards) +
         "\noutput = part" + std::to_string(shard) + ".h5\n";
}

void expect_same_records(const FileContents& a, const FileContents& b) {
  ASSERT_EQ(a.tasks.size(), b.tasks.size());
  ASSERT_EQ(a.done, b.done);
  ASSERT_EQ(a.ws.size(), b.ws.size());
  for (std::size_t i = 0; i < a.ws.size(); ++i) expect_same_ws(a.ws[i], b.ws[i]);
  ASSERT_EQ(a.gen.size(), b.gen.size());
  for (std::size_t i = 0; i < a.gen.size(); ++i) expect_same_gen(a.gen[i], b.gen[i]);
  ASSERT_EQ(a.arrays.size(), b.arrays.size());
  for (std::size_t i = 0; i < a.arrays.size(); ++i) {
    EXPECT_EQ(a.arrays[i].task_id, b.arrays[i].task_id);
    EXPECT_EQ(a.arrays[i].name, b.arrays[i].name);
    EXPECT_EQ(a.arrays[i].values, b.arrays[i].values);
  }
}

TEST_F(MergeTest, ShardsMergedEqualTheUnshardedRun) {
  const auto tasks = make_tasks(12, 6);
  write_shard("all.h5", tasks, 0, 1, config_of(12, 6));
  for (int s = 0; s < 3; ++s) {
    write_shard("part" + std::to_string(s) + ".h5", tasks, s, 3,
                config_with_shard(config_of(12, 6), s, 3));
  }
  ResultsFile::merge({path("part2.h5"), path("part0.h5"), path("part1.h5")}, path("merged.h5"),
                     false, "wordsens merge ...");
  const auto all = read_results(path("all.h5"));
  const auto merged = read_results(path("merged.h5"));
  expect_same_records(all, merged);
  for (std::size_t i = 0; i < all.tasks.size(); ++i) {
    EXPECT_EQ(merged.tasks[i].task_id, all.tasks[i].task_id);
  }
  EXPECT_EQ(merged.provenance.config_text, config_of(12, 6));  // shard keys dropped
  EXPECT_EQ(merged.config_hash, all.config_hash);
  // The merged file can be resumed with the unsharded configuration (nothing left to do).
  auto resumed = ResultsFile::open_for_resume(path("merged.h5"), config_of(12, 6));
  EXPECT_EQ(resumed.done_task_ids().size(), tasks.size());
}

TEST_F(MergeTest, PartialShardsMergeToTheUnion) {
  const auto tasks = make_tasks(6, 0);
  {
    auto file = ResultsFile::create(
        path("a.h5"), provenance(config_with_shard(config_of(6, 0), 0, 2)), tasks, false);
    append_task(file, tasks[0]);
  }
  {
    auto file = ResultsFile::create(
        path("b.h5"), provenance(config_with_shard(config_of(6, 0), 1, 2)), tasks, false);
    append_task(file, tasks[3]);
  }
  ResultsFile::merge({path("a.h5"), path("b.h5")}, path("m.h5"), false, "merge");
  const auto m = read_results(path("m.h5"));
  EXPECT_EQ(m.done, (std::vector<std::uint8_t>{1, 0, 0, 1, 0, 0}));
  EXPECT_EQ(m.ws.size(), 2u);
}

TEST_F(MergeTest, RefusesDifferentConfigurationsAndDuplicatedTasks) {
  const auto tasks = make_tasks(6, 0);
  write_shard("a.h5", tasks, 0, 2, config_with_shard(config_of(6, 0), 0, 2));
  // Another configuration (d = 8), with the tasks it plans.
  std::string other = config_of(6, 0);
  other.replace(other.find("\nd = 4\n"), 7, "\nd = 8\n");
  write_shard("b.h5", plan_of_config_text(other), 1, 2, config_with_shard(other, 1, 2));
  try {
    ResultsFile::merge({path("a.h5"), path("b.h5")}, path("m.h5"), false, "merge");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("(differing keys: d)"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path("m.h5")));
  write_shard("c.h5", tasks, 0, 1, config_of(6, 0));  // overlaps a.h5
  try {
    ResultsFile::merge({path("a.h5"), path("c.h5")}, path("m.h5"), false, "merge");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("duplicated"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ResultsFile::merge({path("a.h5"), path("missing.h5")}, path("m.h5"), false, "m"),
               InputError);
  // An existing output is refused without overwrite.
  write_shard("b2.h5", tasks, 1, 2, config_with_shard(config_of(6, 0), 1, 2));
  EXPECT_THROW(ResultsFile::merge({path("a.h5"), path("b2.h5")}, path("c.h5"), false, "m"),
               InputError);
}

TEST(SummaryStatistics, MatchHandComputedValues) {
  const auto s = summary_statistics({4.0, 1.0, 3.0, 2.0, std::nan("")});
  EXPECT_DOUBLE_EQ(s[0], 2.5);                       // mean
  EXPECT_DOUBLE_EQ(s[1], std::sqrt(5.0 / 3.0));      // std, ddof = 1
  EXPECT_DOUBLE_EQ(s[2], std::sqrt(5.0 / 3.0) / 2);  // sem
  EXPECT_DOUBLE_EQ(s[3], 2.5);                       // median
  EXPECT_DOUBLE_EQ(s[4], 1.15);                      // numpy.quantile([1,2,3,4], 0.05)
  EXPECT_DOUBLE_EQ(s[5], 3.85);
  const auto one = summary_statistics({7.0});
  EXPECT_DOUBLE_EQ(one[0], 7.0);
  EXPECT_TRUE(std::isnan(one[1]));
  EXPECT_DOUBLE_EQ(one[4], 7.0);
  for (double v : summary_statistics({std::nan("")})) EXPECT_TRUE(std::isnan(v));
}

TEST_F(MergeTest, SummariesMatchADirectComputation) {
  if (!has_h5py()) {
    GTEST_SKIP() << "h5py is needed to read /summary independently";
  }
  const auto tasks = make_tasks(12, 6);
  write_shard("all.h5", tasks, 0, 1, config_of(12, 6));
  // Dump the summary tables with h5py (an independent reader) as text.
  const std::string out = path("summary.txt");
  const std::string script =
      "import h5py\n"
      "f = h5py.File('" +
      path("all.h5") +
      "', 'r')\n"
      "o = open('" +
      out +
      "', 'w')\n"
      "for g in ('summary/ws', 'summary/gen'):\n"
      "    t = f[g]\n"
      "    for i in range(t['point_id'].shape[0]):\n"
      "        keys = ['S_mean','S_std','S_sem','S_median','S_q05','S_q95','S_upper_mean'] "
      "if g == 'summary/ws' else ['E_mean','E_std','E_median','E_q95','D1_mean','D1_q05']\n"
      "        extra = [int(t['training'][i]), int(t['objective'][i])] if g == 'summary/gen' "
      "else [0, 0]\n"
      "        vals = [float(t[k][i]) for k in keys]\n"
      "        o.write(' '.join(map(repr, [g, int(t['point_id'][i])] + extra + "
      "[int(t['count'][i])] + vals)) + '\\n')\n";
  { std::ofstream(path("dump.py")) << script; }
  ASSERT_EQ(std::system(("/usr/bin/python3 " + path("dump.py")).c_str()), 0);

  // Direct computation from the records.
  std::map<std::uint32_t, std::vector<double>> S, S_upper;
  std::map<std::tuple<std::uint32_t, int, int>, std::pair<std::vector<double>, std::vector<double>>>
      gen;
  for (const auto& t : tasks) {
    if (t.experiment == Experiment::ws) {
      S[t.point_id].push_back(ws_record(t).S);
      S_upper[t.point_id].push_back(ws_record(t).S_upper);
    } else {
      for (const auto& r : gen_records(t)) {
        auto& g = gen[{t.point_id, r.training, r.objective}];
        g.first.push_back(r.E);
        g.second.push_back(r.D1);
      }
    }
  }
  std::ifstream in(out);
  std::string group;
  std::size_t ws_rows = 0, gen_rows = 0;
  while (in >> group) {
    std::uint32_t point = 0;
    int training = 0, objective = 0;
    long count = 0;
    in >> point >> training >> objective >> count;
    std::vector<double> v(group == "'summary/ws'" ? 7 : 6);
    for (auto& x : v) {
      std::string token;
      in >> token;
      x = token == "nan" ? std::nan("") : std::stod(token);
    }
    const auto same = [](double a, double b) {
      return (std::isnan(a) && std::isnan(b)) || std::abs(a - b) <= 1e-12 * (1 + std::abs(b));
    };
    if (group == "'summary/ws'") {
      ++ws_rows;
      ASSERT_EQ(count, static_cast<long>(S.at(point).size()));
      const auto s = summary_statistics(S.at(point));
      const auto u = summary_statistics(S_upper.at(point));
      // Independent of summary_statistics for the mean and median:
      std::vector<double> x = S.at(point);
      std::sort(x.begin(), x.end());
      EXPECT_TRUE(same(v[0], (x[0] + x[1] + x[2]) / 3)) << point;
      EXPECT_TRUE(same(v[3], x[1])) << point;
      for (std::size_t k = 0; k < 6; ++k) EXPECT_TRUE(same(v[k], s[k])) << point << " " << k;
      EXPECT_TRUE(same(v[6], u[0]));
    } else {
      ++gen_rows;
      const auto& g = gen.at({point, training, objective});
      ASSERT_EQ(count, static_cast<long>(g.first.size()));
      const auto e = summary_statistics(g.first);
      const auto d = summary_statistics(g.second);
      EXPECT_TRUE(same(v[0], e[0]) && same(v[1], e[1]) && same(v[2], e[3]) && same(v[3], e[5]));
      EXPECT_TRUE(same(v[4], d[0]) && same(v[5], d[4]));
    }
  }
  EXPECT_EQ(ws_rows, S.size());
  EXPECT_EQ(gen_rows, gen.size());
}

}  // namespace
}  // namespace wordsens::io
