#include "cli/run_keys.hpp"

#include "cli/plan_export.hpp"

#include <algorithm>

#include "cli/key_table.hpp"
#include "cli/option_values.hpp"
#include "cli/plan_export.hpp"
#include "core/errors.hpp"
#include "estimators/multi_word.hpp"
#include "estimators/positions.hpp"
#include "models/shared/model_kind.hpp"
#include "parallel/node_memory.hpp"
#include "study/grid_spec.hpp"

namespace po = boost::program_options;

namespace wordsens::cli {
namespace {

// The two groups of keys, as --help and the configuration reference title them.
constexpr const char* kStudyCaption = "Study (INI keys; --key=value on the command line wins)";
constexpr const char* kRunCaption = "Run (not part of the configuration compared on resume)";

}  // namespace

void add_study_keys(po::options_description& group, RunKeyValues& r, KeyFormats* formats,
                    const KeySubset* subset) {
  // Each key as the study describes it (study/study_settings.cpp); here only where its text goes,
  // in the order --help and docs/CONFIG.md show them.
  KeyTable(group, formats, subset)("experiments", &r.experiments)("models", &r.models)(
      "gen-models", &r.gen_models)("n", &r.n)("d", &r.d)("gen-n", &r.gen_n)("gen-d", &r.gen_d)(
      "k", &r.k)("mlp-width", &r.mlp_width)("N", &r.N)("layers", &r.layers)(
      "activation", &r.activation)("heads", &r.heads)("mask", &r.mask)(
      "rf-sampling", &r.rf_sampling)("trials", &r.trials)("first-trial", &r.first_trial)(
      "max-trials", &r.max_trials)("select", &r.select)("seed", &r.seed)("positions", &r.positions)(
      "words", &r.words)("words-fraction", &r.words_fraction)("word-sets", &r.word_sets)(
      "training", &r.training)("objective", &r.objective)("data", &r.data)("encoder", &r.encoder)(
      "encoder-layer", &r.encoder_layer)("save-witness", &r.save_witness)("purpose", &r.purpose);
}

po::options_description describe_run_keys(
    RunKeyValues& r, KeyFormats* formats,
    std::vector<std::pair<std::string, po::options_description>>* groups) {
  po::options_description study(kStudyCaption);
  add_study_keys(study, r, formats);
  add_search_options(study, r.search, /*ws_options=*/true, formats);
  po::options_description run(kRunCaption);
  // clang-format off
  KeyTable(run, formats)
      ("help,h", po::bool_switch(&r.help),
       {"switch (command line only)", "--help"},
       "print this help")
      ("config", po::value(&r.config)->value_name("FILE"),
       {"path (command line only)", "--config=jobs/configs/quick.ini"},
       "the configuration file (INI); the same as giving FILE as the first argument")
      ("output,o", &r.output, "results.h5",
       {"path", "output = results/paper_ws.h5"},
       "results file (HDF5); an existing file of the same configuration is resumed, by the "
       "build that computed it only (software_version, git_sha, build; another is refused)")
      ("overwrite", switch_value(&r.overwrite),
       {"switch: true or false", "overwrite = true"},
       "start over, replacing an existing output")
      ("dry-run", switch_value(&r.dry_run), {"switch: true or false", "dry-run = true"},
       "print the task table and estimated cost, touch no file")
      ("format", &r.format, "table", {"table, tsv or json", "format = json"},
       "what --dry-run prints: table (for people), or tsv or json (for scripts: each grid "
       "point's tasks, seconds and bytes; json adds the wall times and the memory per rank)")
      ("calibration", &r.calibration, "auto", {"auto, none or a path", "calibration = none"},
       "the host calibration --dry-run prices its seconds with (written by `wordsens "
       "calibrate`): auto: $WORDSENS_CALIBRATION, else ~/.config/wordsens/calibration.tsv, "
       "when it exists; none: the development machine's prices")
      ("walltime", &r.walltime, "0", {"seconds >= 0", "walltime = 14100"},
       "seconds after which no task is handed out (then exit 3); 0: none")
      ("shard", &r.shard, "0/1", {"i/N with 0 <= i < N", "shard = 2/8"},
       "i/N: run only tasks whose index = i (mod N) (job arrays; merge the files)")
      ("progress", &r.progress, "10", {"seconds > 0", "progress = 60"},
       "seconds between progress lines on stderr")
      ("memory-per-rank", &r.memory_per_rank, "auto",
       {"auto, or bytes with K, M, G or T (powers of 1024)", "memory-per-rank = 8G"},
       "the memory a rank may use: a plan whose largest task needs more is refused before it "
       "starts; auto: this machine's available memory (or its control group's, or ulimit -v) "
       "shared by the ranks the launcher starts on it; on a cluster, the memory the job gives "
       "each rank");
  // clang-format on
  po::options_description all;
  all.add(study).add(run);
  if (groups != nullptr) {
    groups->emplace_back(kStudyCaption, study);
    groups->emplace_back(kRunCaption, run);
  }
  return all;
}

namespace {

// `parse(text)`, its std::invalid_argument replaced by "<key> = '<text>': expected <expected>".
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
void resolve_words(const RunKeyValues& r, StudyConfig& s) {
  s.grid.words = r.words.empty() ? std::vector<Index>{}
                                 : parse_int_grid("words", r.words, 1, StudyLimits::max_n);
  if (!r.words_fraction.empty())
    s.grid.words_fraction = parse_fraction_list("words-fraction", r.words_fraction);
  if (s.grid.words.empty() && s.grid.words_fraction.empty()) {
    throw InputError("words and words-fraction are both empty: no number of changed words");
  }
  s.search.word_sets =
      parse_keyed("word-sets", r.word_sets, "first, random:r (r >= 1) or greedy",
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

RunKeyValues default_run_key_values() {
  RunKeyValues values;
  const auto described = describe_run_keys(values);
  po::variables_map vm;
  po::store(po::parsed_options(&described), vm);  // no option given: each takes its default
  po::notify(vm);
  return values;
}

StudyConfig resolve_study(const RunKeyValues& r) {
  StudyConfig s;
  s.grid.experiments =
      parse_enum_list<Experiment>("experiments", r.experiments, {"ws", "gen"}, parse_experiment);
  s.grid.models = model_kinds(parse_name_list("models", r.models, model_names()));
  if (!r.gen_models.empty()) {
    s.grid.gen_models = model_kinds(parse_name_list("gen-models", r.gen_models, model_names()));
  }
  s.grid.n = parse_int_grid("n", r.n, 1, StudyLimits::max_n);
  s.grid.d = parse_int_grid("d", r.d, 1, StudyLimits::max_d);
  if (!r.gen_n.empty()) s.grid.gen_n = parse_int_grid("gen-n", r.gen_n, 1, StudyLimits::max_n);
  if (!r.gen_d.empty()) s.grid.gen_d = parse_int_grid("gen-d", r.gen_d, 1, StudyLimits::max_d);
  s.grid.k = parse_k_grid(r.k, StudyLimits::max_k);
  s.grid.mlp_width = parse_mlp_width_grid(r.mlp_width, StudyLimits::max_k);
  s.grid.N = parse_int_grid("N", r.N, 1, StudyLimits::max_N);
  s.grid.layers = parse_int_grid("layers", r.layers, 1, StudyLimits::max_layers);
  s.activation = parse_activation(r.activation);
  if (s.activation == Activation::gelu && has_random_features_model(s)) {
    throw InputError(
        "activation = 'gelu' applies to block's MLP only: rf and drf need relu or tanh (their "
        "certified bound needs a 1-Lipschitz activation)");
  }
  s.grid.heads = parse_int_grid("heads", r.heads, 1, StudyLimits::max_d);
  s.mask = parse_keyed("mask", r.mask, "none or causal", parse_mask);
  if (r.rf_sampling != "full" && r.rf_sampling != "marginal") {
    throw_bad_value("rf-sampling", r.rf_sampling, "full or marginal");
  }
  // Kept as given; canonical_text names it only when a model it applies to is in the study.
  s.rf_sampling = r.rf_sampling == "marginal" ? RfSampling::marginal : RfSampling::full;
  if (r.purpose != "claims" && r.purpose != "descriptive") {
    throw_bad_value("purpose", r.purpose, "claims or descriptive");
  }
  s.descriptive = r.purpose == "descriptive";
  s.grid.trials = static_cast<std::uint32_t>(
      parse_integer_value("trials", r.trials, 1, StudyLimits::max_trials));
  const auto first_trial =
      parse_integer_value("first-trial", r.first_trial, 0, StudyLimits::max_trials);
  const auto max_trials =
      parse_integer_value("max-trials", r.max_trials, 0, StudyLimits::max_trials);
  if (first_trial > 0 && max_trials == 0) {
    throw InputError("first-trial = '" + r.first_trial +
                     "': needs max-trials (the study's largest trial count, which keys every "
                     "trial's random streams)");
  }
  s.grid.first_trial = static_cast<std::uint32_t>(first_trial);
  s.grid.max_trials = static_cast<std::uint32_t>(max_trials);
  s.grid.select = PointSelection::parse(r.select);
  s.seed = static_cast<std::uint32_t>(parse_integer_value("seed", r.seed, 0, 4294967295LL));
  s.search.positions =
      parse_keyed("positions", r.positions, "all, first or random:m (m >= 1)",
                  [](const std::string& text) { return PositionSet::parse(text); });
  apply_search_options(r.search, s);
  resolve_words(r, s);
  s.search.trainings =
      parse_enum_list<Training>("training", r.training, {"finetune", "retrain"}, parse_training);
  s.search.objectives =
      parse_enum_list<HeadObjective>("objective", r.objective, {"loss", "align"}, parse_objective);
  s.data = DataSpec::parse(r.data);
  s.encoder_path = r.encoder;
  s.encoder_layer = static_cast<Index>(
      parse_integer_value("encoder-layer", r.encoder_layer, 1, StudyLimits::max_layers));
  if (has_encoder_model(s) && s.encoder_path.empty()) {
    throw InputError(
        "the trained models need a pretrained encoder: encoder = <folder with config.json and "
        "model.safetensors> (bash jobs/install_encoder.sh --model-dir prints the installed one)");
  }
  s.save_witness = parse_bool_value("save-witness", r.save_witness);
  return s;
}

void resolve_run(const RunKeyValues& r, RunOptions& options) {
  options.shard = Shard::parse(r.shard);
  if (r.output.empty()) throw_bad_value("output", r.output, "a file name");
  options.output = r.output;
  options.overwrite = parse_bool_value("overwrite", r.overwrite);
  options.dry_run = parse_bool_value("dry-run", r.dry_run);
  options.plan_format = r.format;
  (void)parse_plan_format(r.format);  // a bad value is refused with or without --dry-run
  if (r.calibration.empty()) throw_bad_value("calibration", r.calibration, "auto, none or a path");
  options.calibration = r.calibration;
  options.walltime = parse_real_value(
      "walltime", r.walltime, [](double x) { return x >= 0; }, "seconds >= 0 (0: none)");
  options.progress_interval = parse_real_value(
      "progress", r.progress, [](double x) { return x > 0; }, "seconds > 0");
  if (r.memory_per_rank != "auto") {
    const auto bytes = parallel::parse_bytes(r.memory_per_rank);
    if (!bytes || *bytes < 1) {
      throw_bad_value("memory-per-rank", r.memory_per_rank,
                      "auto, or bytes with K, M, G or T (powers of 1024), e.g. 8G");
    }
    options.memory_per_rank = *bytes;
  }
}

}  // namespace wordsens::cli
