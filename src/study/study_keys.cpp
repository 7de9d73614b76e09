#include "study/study_keys.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/errors.hpp"
#include "estimators/multi_word.hpp"
#include "estimators/positions.hpp"
#include "models/shared/model_kind.hpp"
#include "study/grid_spec.hpp"
#include "study/key_values.hpp"
#include "study/study_settings.hpp"

namespace wordsens {

StudyKeyTexts::StudyKeyTexts() {
  for (const auto& [key, kind] : setting_kinds()) {
    const SettingDescription& d = setting_description(key);
    texts_.emplace(key, d.is_switch ? "false" : d.default_text);
  }
}

std::string& StudyKeyTexts::operator[](const std::string& key) {
  const auto found = texts_.find(key);
  if (found == texts_.end()) throw std::logic_error("no study key is named " + key);
  return found->second;
}

const std::string& StudyKeyTexts::operator[](const std::string& key) const {
  const auto found = texts_.find(key);
  if (found == texts_.end()) throw std::logic_error("no study key is named " + key);
  return found->second;
}

namespace {

// `parse(text)`, its InputError replaced by "<key> = '<text>': expected <expected>".
template <typename Parse>
auto parse_keyed(const std::string& key, const std::string& text, const std::string& expected,
                 Parse parse) -> decltype(parse(text)) {
  try {
    return parse(text);
  } catch (const InputError&) {
    throw_bad_value(key, text, expected);
  }
}

template <typename T, typename Parse>
std::vector<T> parse_enum_list(const std::string& key, const std::string& text,
                               const std::vector<std::string>& allowed, Parse parse) {
  std::vector<T> values;
  for (const auto& name : parse_name_list(key, text, allowed)) values.push_back(parse(name));
  return values;
}

// Whether some ws task changes two words or more: a fraction f gives m = ⌈f·n⌉, which is 1 at
// every n when f·n ≤ 1 throughout the grid.
bool some_task_changes_several_words(const StudyConfig& s) {
  try {
    for (const Index n : s.grid.n) {
      const auto words = words_at(s, n);
      if (!words.empty() && words.back() >= 2) return true;
    }
  } catch (const InputError&) {
    return true;  // m > n ≥ 1 (plan_tasks says so)
  }
  return false;
}

// words, words-fraction and word-sets; the m ≤ n check is plan_tasks' (it knows n).
void resolve_words(const StudyKeyTexts& t, StudyConfig& s) {
  s.grid.words = t["words"].empty() ? std::vector<Index>{}
                                    : parse_int_grid("words", t["words"], 1, StudyLimits::max_n);
  if (!t["words-fraction"].empty())
    s.grid.words_fraction = parse_fraction_list("words-fraction", t["words-fraction"]);
  if (s.grid.words.empty() && s.grid.words_fraction.empty()) {
    throw InputError("words and words-fraction are both empty: no number of changed words");
  }
  s.search.word_sets =
      parse_keyed("word-sets", t["word-sets"], "first, random:r (r >= 1) or greedy",
                  [](const std::string& text) { return WordSetFamily::parse(text); });
  if (!some_task_changes_several_words(s)) return;
  const bool ws = std::find(s.grid.experiments.begin(), s.grid.experiments.end(), Experiment::ws) !=
                  s.grid.experiments.end();
  const bool marginal_sampler = std::any_of(s.grid.models.begin(), s.grid.models.end(),
                                            [](ModelKind m) { return traits(m).marginal_sampler; });
  if (ws && marginal_sampler && s.rf_sampling == RfSampling::marginal) {
    throw InputError(
        "rf-sampling = marginal cannot take words >= 2 (it draws single word blocks): use the "
        "full sampler");
  }
}

}  // namespace

// The keys in the order their values are checked: the first bad one (in this order) is the one
// reported, as it always was.
StudyConfig resolve_study(const StudyKeyTexts& t) {
  StudyConfig s;
  s.grid.experiments =
      parse_enum_list<Experiment>("experiments", t["experiments"], {"ws", "gen"}, parse_experiment);
  s.grid.models = model_kinds(parse_name_list("models", t["models"], model_names()));
  if (!t["gen-models"].empty()) {
    s.grid.gen_models = model_kinds(parse_name_list("gen-models", t["gen-models"], model_names()));
  }
  s.grid.n = parse_int_grid("n", t["n"], 1, StudyLimits::max_n);
  s.grid.d = parse_int_grid("d", t["d"], 1, StudyLimits::max_d);
  if (!t["gen-n"].empty())
    s.grid.gen_n = parse_int_grid("gen-n", t["gen-n"], 1, StudyLimits::max_n);
  if (!t["gen-d"].empty())
    s.grid.gen_d = parse_int_grid("gen-d", t["gen-d"], 1, StudyLimits::max_d);
  s.grid.k = parse_k_grid(t["k"], StudyLimits::max_k);
  s.grid.mlp_width = parse_mlp_width_grid(t["mlp-width"], StudyLimits::max_k);
  s.grid.N = parse_int_grid("N", t["N"], 1, StudyLimits::max_N);
  s.grid.layers = parse_int_grid("layers", t["layers"], 1, StudyLimits::max_layers);
  s.activation = parse_activation(t["activation"]);
  if (s.activation == Activation::gelu && has_random_features_model(s)) {
    throw InputError(
        "activation = 'gelu' applies to block's MLP only: rf and drf need relu or tanh (their "
        "certified bound needs a 1-Lipschitz activation)");
  }
  s.grid.heads = parse_int_grid("heads", t["heads"], 1, StudyLimits::max_d);
  s.mask = parse_keyed("mask", t["mask"], "none or causal", parse_mask);
  const std::string& rf_sampling = t["rf-sampling"];
  if (rf_sampling != "full" && rf_sampling != "marginal") {
    throw_bad_value("rf-sampling", rf_sampling, "full or marginal");
  }
  // Kept as given; canonical_text names it only when a model it applies to is in the study.
  s.rf_sampling = rf_sampling == "marginal" ? RfSampling::marginal : RfSampling::full;
  const std::string& purpose = t["purpose"];
  if (purpose != "claims" && purpose != "descriptive") {
    throw_bad_value("purpose", purpose, "claims or descriptive");
  }
  s.descriptive = purpose == "descriptive";
  s.grid.trials = static_cast<std::uint32_t>(
      parse_integer_value("trials", t["trials"], 1, StudyLimits::max_trials));
  const auto first_trial =
      parse_integer_value("first-trial", t["first-trial"], 0, StudyLimits::max_trials);
  const auto max_trials =
      parse_integer_value("max-trials", t["max-trials"], 0, StudyLimits::max_trials);
  if (first_trial > 0 && max_trials == 0) {
    throw InputError("first-trial = '" + t["first-trial"] +
                     "': needs max-trials (the study's largest trial count, which keys every "
                     "trial's random streams)");
  }
  s.grid.first_trial = static_cast<std::uint32_t>(first_trial);
  s.grid.max_trials = static_cast<std::uint32_t>(max_trials);
  s.grid.select = PointSelection::parse(t["select"]);
  s.seed = static_cast<std::uint32_t>(parse_integer_value("seed", t["seed"], 0, 4294967295LL));
  s.search.positions =
      parse_keyed("positions", t["positions"], "all, first or random:m (m >= 1)",
                  [](const std::string& text) { return PositionSet::parse(text); });
  apply_search_keys(t, s);
  resolve_words(t, s);
  s.search.trainings =
      parse_enum_list<Training>("training", t["training"], {"finetune", "retrain"}, parse_training);
  s.search.objectives = parse_enum_list<HeadObjective>("objective", t["objective"],
                                                       {"loss", "align"}, parse_objective);
  s.data = DataSpec::parse(t["data"]);
  s.encoder_path = t["encoder"];
  s.encoder_layer = static_cast<Index>(
      parse_integer_value("encoder-layer", t["encoder-layer"], 1, StudyLimits::max_layers));
  if (has_encoder_model(s) && s.encoder_path.empty()) {
    throw InputError(
        "the trained models need a pretrained encoder: encoder = <folder with config.json and "
        "model.safetensors> (bash jobs/install_encoder.sh --model-dir prints the installed one)");
  }
  s.save_witness = parse_bool_value("save-witness", t["save-witness"]);
  return s;
}

}  // namespace wordsens
