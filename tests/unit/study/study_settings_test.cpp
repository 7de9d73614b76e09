// The study's settings as a results file stores them (study/study_settings.hpp): the text made
// from them reads back as the same typed values, only a value's canonical spelling is typed, and
// the optional keys appear exactly where a study names them.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <variant>

#include "study/grid_spec.hpp"
#include "study/study.hpp"
#include "study/study_settings.hpp"

namespace wordsens {
namespace {

// A study that names every optional key.
StudyConfig every_key() {
  StudyConfig c;
  c.grid.experiments = {Experiment::ws, Experiment::gen};
  c.grid.models = {ModelKind::rf, ModelKind::raf, ModelKind::mhraf, ModelKind::block,
                   ModelKind::trained_attn};
  c.grid.gen_models = {ModelKind::raf};
  c.grid.n = {8, 16};
  c.grid.d = {4};
  c.grid.k = parse_k_grid("0.5D,80", 1 << 30);
  c.grid.mlp_width = parse_mlp_width_grid("2d,64", 1 << 30);
  c.grid.heads = {1, 2};
  c.grid.words = {1, 2};
  c.grid.words_fraction = {0.25, 0.1};
  c.grid.first_trial = 5;
  c.grid.max_trials = 20;
  c.grid.select = PointSelection::parse("model:raf;model:rf,n:8");
  c.search.word_sets = WordSetFamily::parse("random:3");
  c.search.race_evaluations = 30;
  c.search.min_total_sphere_starts = 12;
  c.search.rel_tol = 1e-9;
  c.search.upper_bound = false;
  c.rf_sampling = RfSampling::marginal;  // (refused with words >= 2 by the parser, not here)
  c.mask = AttentionMask::causal;
  c.descriptive = true;
  c.encoder_path = "enc/folder";
  c.encoder_layer = 3;
  c.save_witness = true;
  return c;
}

TEST(StudySettings, TheTextReadsBackAsTheSameTypedValues) {
  for (const StudyConfig& c : {StudyConfig{}, every_key()}) {
    const auto settings = study_settings(c);
    EXPECT_EQ(settings_of_text(canonical_text(c)), settings) << canonical_text(c);
  }
}

TEST(StudySettings, TheOptionalKeysAppearWhereTheyApply) {
  std::set<std::string> named, always;
  for (const auto& s : study_settings(every_key())) named.insert(s.key);
  for (const auto& s : study_settings(StudyConfig{})) always.insert(s.key);
  for (const auto& [key, kind] : setting_kinds()) EXPECT_TRUE(named.count(key)) << key;
  for (const char* key : {"heads", "mask", "mlp-width", "purpose", "encoder", "encoder-layer",
                          "race-evaluations", "race-survivors", "first-trial", "max-trials",
                          "select", "words", "words-fraction", "word-sets", "rf-sampling"}) {
    EXPECT_FALSE(always.count(key)) << key;
  }
  // rf-sampling only as marginal and with rf.
  StudyConfig without_rf = every_key();
  without_rf.grid.models = {ModelKind::raf};
  without_rf.grid.gen_models = {};
  for (const auto& s : study_settings(without_rf)) EXPECT_NE(s.key, "rf-sampling");
}

TEST(StudySettings, ValuesAreTypedByTheirKind) {
  const auto settings = study_settings(every_key());
  const auto value_of = [&](const std::string& key) {
    for (const auto& s : settings) {
      if (s.key == key) return s.value;
    }
    ADD_FAILURE() << key;
    return SettingValue{};
  };
  EXPECT_EQ(std::get<std::vector<std::int64_t>>(value_of("n")), (std::vector<std::int64_t>{8, 16}));
  EXPECT_EQ(std::get<std::vector<std::string>>(value_of("k")),
            (std::vector<std::string>{"0.5D", "80"}));
  EXPECT_EQ(std::get<std::vector<double>>(value_of("words-fraction")),
            (std::vector<double>{0.25, 0.1}));
  EXPECT_EQ(std::get<double>(value_of("rel-tol")), 1e-9);
  EXPECT_EQ(std::get<bool>(value_of("upper-bound")), false);
  EXPECT_EQ(std::get<std::int64_t>(value_of("min-total-sphere-starts")), 12);
  EXPECT_EQ(std::get<std::int64_t>(value_of("encoder-layer")), 3);
  EXPECT_EQ(std::get<std::string>(value_of("mask")), "causal");
  EXPECT_EQ(setting_text(SettingKind::count_or_auto, SettingValue{std::int64_t{-1}}), "auto");
}

TEST(StudySettings, OnlyTheCanonicalSpellingIsTyped) {
  for (const auto& [kind, text] :
       std::vector<std::pair<SettingKind, std::string>>{{SettingKind::integer, "+3"},
                                                        {SettingKind::integer, "08"},
                                                        {SettingKind::integer, "1e2"},
                                                        {SettingKind::real, "0.10"},
                                                        {SettingKind::boolean, "yes"},
                                                        {SettingKind::count_or_auto, "-2"},
                                                        {SettingKind::integers, "8, 16"},
                                                        {SettingKind::reals, "0.5,"}}) {
    EXPECT_FALSE(parse_setting(kind, text).has_value()) << to_string(kind) << " " << text;
  }
  for (const auto& [kind, text] :
       std::vector<std::pair<SettingKind, std::string>>{{SettingKind::integer, "-3"},
                                                        {SettingKind::real, "1e-07"},
                                                        {SettingKind::real, "123456789012"},
                                                        {SettingKind::count_or_auto, "auto"},
                                                        {SettingKind::integers, ""},
                                                        {SettingKind::texts, "1D,80"}}) {
    const auto value = parse_setting(kind, text);
    ASSERT_TRUE(value.has_value()) << text;
    EXPECT_EQ(setting_text(kind, *value), text);
  }
}

TEST(StudySettings, AStoredTextIsReadAsTheIniReaderReadsIt) {
  const auto settings = settings_of_text(
      "n = 8,16\nd = 08\nshard = 1/4\n# a comment\n\n = 3\nseed = 1\nseed = 2\n[run]\ntrials = "
      "3\n");
  const std::vector<StoredSetting> expected{
      {"n", SettingKind::integers, std::vector<std::int64_t>{8, 16}},
      {"d", SettingKind::text, std::string("08")},  // not the canonical spelling: as text
      {"shard", SettingKind::text, std::string("1/4")},
      {"seed", SettingKind::integer, std::int64_t{2}},  // the last value
      {"run.trials", SettingKind::text, std::string("3")},
  };
  EXPECT_EQ(settings, expected);
}

TEST(StudySettings, EveryKeyHasOneKindInKeyOrder) {
  const auto kinds = setting_kinds();
  ASSERT_GE(kinds.size(), 40u);
  for (std::size_t i = 1; i < kinds.size(); ++i) EXPECT_LT(kinds[i - 1].first, kinds[i].first);
  for (const auto& [key, kind] : kinds) EXPECT_EQ(setting_kind(key), kind) << key;
  EXPECT_FALSE(setting_kind("shard").has_value());
}

}  // namespace
}  // namespace wordsens
