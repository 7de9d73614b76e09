// The invariants of a record (study/record_invariants.hpp, io/integrity/record_checks.cpp): a
// record that keeps them is consistent; each one broken, the others kept, is damage naming the
// invariant and the task, for check_results (info --check, resume, merge) and read_results alike.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "io/results_file.hpp"
#include "io_test_support.hpp"
#include "study/record_invariants.hpp"

namespace wordsens::io {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): test helpers

// A study of ws tasks of one changed word (0-2 rf, with a bound over every position; 6-8 raf,
// without), of two (3-5 rf, a bound over the examined sets), and gen tasks (9-11), without the
// gen keys (as an older writer's text).
const std::string kConfig =
    "N = 20\nd = 4\nexperiments = ws,gen\ngen-models = raf_relu\nmodels = rf,raf\nn = 10\n"
    "seed = 12345\nselect = model:rf;model:raf,m:1;experiment:gen\ntrials = 3\nwords = 1,2\n";

// A record of two changed words as a run writes it: the best of two examined sets.
WsRecord several_words_record(const TaskSpec& t) {
  WsRecord r = ws_record(t);
  r.S_upper_scope = t.model == ModelKind::rf ? 2 : 0;  // a bound over the examined sets
  r.argmax_position = -1;
  r.examined.clear();
  r.position_S.clear();
  r.stationarity = std::nan("");
  r.S_budget_check = std::nan("");
  r.examined_sets = {0, 3, 1, 2};
  r.set_S = {r.S * 0.5, r.S};
  r.argmax_set = {1, 2};
  r.witness.assign(static_cast<std::size_t>(2 * t.d), 0.25);
  return r;
}

WsRecord record_of(const TaskSpec& t) {
  return t.words >= 2 ? several_words_record(t) : ws_record(t);
}

using Edit = std::function<void(WsRecord&)>;
using GenEdit = std::function<void(std::vector<GenRecord>&)>;

class RecordInvariantsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  [[nodiscard]] std::string path() const { return (dir_ / "r.h5").string(); }

  // r.h5 of the configuration `config` with every task of its plan done: `edit` changes the
  // record of task `edited` (ws) or the rows of the first gen task.
  void write(const std::string& config, std::uint32_t edited, const Edit& edit,
             const GenEdit& gen_edit = {}, bool save_witness = false) {
    std::filesystem::remove(path());
    const std::vector<TaskSpec> tasks = plan_of_config_text(config);
    auto file = ResultsFile::create(path(), provenance(config, save_witness), tasks, false);
    bool first_gen = true;
    for (const TaskSpec& t : tasks) {
      if (t.experiment == Experiment::ws) {
        WsRecord r = record_of(t);
        if (!save_witness) r.witness.clear();
        if (t.task_id == edited && edit) edit(r);
        file.append(r);
      } else {
        auto rows = gen_records(t);
        if (first_gen && gen_edit) gen_edit(rows);
        first_gen = false;
        file.append(rows);
      }
    }
  }

  // The problems of r.h5 (and read_results refuses it when there are any).
  std::string problems() {
    const Diagnosis d = check_results(path());
    std::string text;
    for (const auto& p : d.problems) text += p + "\n";
    if (d.damaged()) {
      EXPECT_THROW((void)read_results(path()), DamagedFileError) << text;
    }
    return text;
  }

  std::filesystem::path dir_;
};

const std::string kGenConfig =
    kConfig + "training = finetune,retrain\n" + "objective = loss,align\n";

TEST_F(RecordInvariantsTest, RecordsAsARunWritesThemKeepEveryInvariant) {
  for (const bool witness : {false, true}) {
    write(kGenConfig, 99, {}, {}, witness);
    EXPECT_EQ(problems(), "") << "save_witness " << witness;
  }
}

// Each invariant broken alone (the values each still one a run can write) is damage naming the
// invariant and the task.
TEST_F(RecordInvariantsTest, EachInvariantBrokenIsDamageNamingItAndTheTask) {
  struct Case {
    const char* what;
    std::uint32_t task;
    Edit edit;
    const char* named;
  };
  const double nan = std::nan("");
  const std::vector<Case> cases = {
      {"a bound without its scope", 0, [](WsRecord& r) { r.S_upper_scope = 0; },
       "/ws records break the invariant upper_bound_and_scope"},
      {"a scope without its bound", 6, [](WsRecord& r) { r.S_upper_scope = 1; },
       "upper_bound_and_scope (FORMAT.md, \"Invariants of a record\") (task 6: S_upper nan, "
       "S_upper_scope 1)"},
      {"scope 2 with the full sampler", 0, [](WsRecord& r) { r.S_upper_scope = 2; },
       "scope_of_the_search (FORMAT.md, \"Invariants of a record\") (task 0: scope 2 with one "
       "changed word, without rf-sampling = marginal)"},
      {"scope 1 for two words", 3, [](WsRecord& r) { r.S_upper_scope = 1; },
       "scope_of_the_search (FORMAT.md, \"Invariants of a record\") (task 3: scope 1 with m = 2"},
      {"more starts at the budget than starts", 0,
       [](WsRecord& r) { r.starts_at_budget = r.starts + 1; }, "the invariant starts ("},
      {"no start", 1,
       [](WsRecord& r) {
         r.starts = 0;
         r.starts_at_budget = 0;
       },
       "task 1: starts 0, starts_at_budget 0"},
      {"no examined position", 2,
       [](WsRecord& r) {
         r.examined.clear();
         r.position_S.clear();
       },
       "one_word_positions (FORMAT.md, \"Invariants of a record\") (task 2: no examined"},
      {"positions out of order", 2, [](WsRecord& r) { std::swap(r.examined[0], r.examined[1]); },
       "is not strictly ascending"},
      {"a position_S short", 2, [](WsRecord& r) { r.position_S.pop_back(); }, "one_word_positions"},
      {"argmax_set not {argmax_position}", 2, [](WsRecord& r) { r.argmax_set = {1}; },
       "one_word_positions"},
      {"word sets on a one-word record", 2, [](WsRecord& r) { r.set_S = {r.S}; },
       "one_word_positions"},
      {"argmax_position -1 on one word", 2, [](WsRecord& r) { r.argmax_position = -1; },
       "one_word_positions"},
      {"S three times its position's", 0, [](WsRecord& r) { r.S *= 3; },
       "one_word_best (FORMAT.md, \"Invariants of a record\") (task 0: S "},
      {"every position_S above S", 1,
       [](WsRecord& r) {
         for (double& s : r.position_S) s *= 10;
         r.S_upper *= 10;
       },
       "one_word_best"},
      {"argmax_position not examined", 2,
       [](WsRecord& r) {
         r.argmax_position = 9;
         r.argmax_set = {9};
       },
       "is not examined"},
      {"one position above S", 2, [](WsRecord& r) { r.position_S.front() = r.S * 1.001; },
       "largest position_S"},
      {"argmax_position set on two words", 3, [](WsRecord& r) { r.argmax_position = 1; },
       "several_words_sets (FORMAT.md, \"Invariants of a record\") (task 3: argmax_position 1)"},
      {"stationarity on two words", 4, [](WsRecord& r) { r.stationarity = 0.5; },
       "several_words_sets"},
      {"a set of one word twice", 4,
       [](WsRecord& r) {
         r.argmax_set = {1, 1};
       },
       "several_words_sets"},
      {"sets not m each", 4, [](WsRecord& r) { r.examined_sets.pop_back(); }, "several_words_sets"},
      {"S above every set_S", 5, [](WsRecord& r) { r.S *= 2; },
       "several_words_best (FORMAT.md, \"Invariants of a record\") (task 5: S "},
      {"argmax_set not the best set", 5,
       [](WsRecord& r) {
         r.argmax_set = {0, 3};
       },
       "is no examined set whose set_S is S"},
  };
  for (const Case& c : cases) {
    write(kGenConfig, c.task, c.edit);
    const std::string found = problems();
    EXPECT_NE(found.find(c.named), std::string::npos) << c.what << ":\n" << found;
    EXPECT_EQ(found.find("\n"), found.size() - 1) << c.what << ": one problem only\n" << found;
  }
  // A witness of another size than m·d (the file saves witnesses).
  write(
      kGenConfig, 1, [](WsRecord& r) { r.witness = {1.0}; }, {}, true);
  EXPECT_NE(problems().find("/ws records break the invariant witness_length (FORMAT.md, "
                            "\"Invariants of a record\") (task 1: witness_length 1, "),
            std::string::npos)
      << problems();
  // Values that are invalid on their own are refused by the value rules (record_fields.cpp).
  write(kGenConfig, 0, [](WsRecord& r) { r.phi_norm = 0; });
  EXPECT_NE(problems().find("/ws/phi_norm holds values outside what a run writes (finite, > 0)"),
            std::string::npos);
  write(kGenConfig, 0, [](WsRecord& r) { r.cert_rel_err = 0.5; });
  EXPECT_NE(problems().find("/ws/cert_rel_err holds values outside what a run writes (0 <= value "
                            "<= 1e-9)"),
            std::string::npos);
  write(kGenConfig, 0, [nan](WsRecord& r) { r.cert_rel_err = nan; });
  EXPECT_NE(problems().find("/ws/cert_rel_err holds values"), std::string::npos);
}

TEST_F(RecordInvariantsTest, TheRowsOfAGenTaskAreOnePerPairAndShareTheirSeconds) {
  write(kGenConfig, 99, {}, [](std::vector<GenRecord>& rows) { rows.pop_back(); });
  EXPECT_NE(problems().find("/gen records break the invariant gen_rows (FORMAT.md, \"Invariants "
                            "of a record\") (task 9: 3 rows, 4 pairs"),
            std::string::npos)
      << problems();
  // Without the keys in config_text (an older writer's text), the pairs are not checked.
  write(kConfig, 99, {}, [](std::vector<GenRecord>& rows) { rows.pop_back(); });
  EXPECT_EQ(problems(), "");
  write(kGenConfig, 99, {}, [](std::vector<GenRecord>& rows) { rows[2].seconds = 7; });
  EXPECT_NE(problems().find("the invariant gen_seconds (FORMAT.md, \"Invariants of a record\") "
                            "(task 9: seconds 0.5 and 7)"),
            std::string::npos)
      << problems();
  write(
      kGenConfig, 99, {}, [](std::vector<GenRecord>& rows) { rows[1].witness.pop_back(); }, true);
  EXPECT_NE(problems().find("/gen records break the invariant witness_length"), std::string::npos)
      << problems();
}

// The scope a search can give depends on the file's configuration: the marginal sampler bounds
// the examined positions only (scope 2, unless it examined them all), upper-bound = false none.
TEST_F(RecordInvariantsTest, TheScopeFollowsTheSamplerAndTheUpperBoundKey) {
  // The marginal sampler changes one word at a time: the study without its two-word points.
  std::string marginal = kConfig + "rf-sampling = marginal\n";
  marginal.replace(marginal.find("words = 1,2"), 11, "words = 1");
  write(marginal, 0, [](WsRecord& r) { r.S_upper_scope = 2; });
  EXPECT_EQ(problems(), "");
  write(marginal, 0, [](WsRecord& r) {
    r.S_upper_scope = 2;
    r.examined.clear();
    r.position_S.clear();
    for (std::int64_t i = 0; i < 10; ++i) {  // task 0: n = 10
      r.examined.push_back(i);
      r.position_S.push_back(i == r.argmax_position ? r.S : r.S / 2);
    }
  });
  EXPECT_NE(problems().find("scope 2 with every one of the n = 10 positions examined"),
            std::string::npos)
      << problems();
  write(kConfig + "upper-bound = false\n", 99, {});
  EXPECT_NE(problems().find("(6 times; first: task 0: scope 1 under upper-bound = false)"),
            std::string::npos)
      << problems();
}

}  // namespace
}  // namespace wordsens::io
