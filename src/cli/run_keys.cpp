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

// A switch: `--name` alone means true; `--name=true|false` (and `name = true|false` in the file)
// says which. Its help shows no default (false).
po::typed_value<std::string>* switch_value(std::string* target) {
  return po::value(target)->implicit_value("true", "")->value_name("[=true|false]");
}

}  // namespace

void add_study_keys(po::options_description& group, RunKeyValues& r, KeyFormats* formats,
                    const KeySubset* subset) {
  const StudyConfig defaults;
  // Every model of the catalogue; the default stays the paper's four.
  static const std::string models_meaning =
      "models: " + known_model_list() + " (comma list; the default: the paper's four)";
  // clang-format off
  KeyTable(group, formats, subset)
      ("experiments", &r.experiments, "ws",
       {"comma list: ws, gen", "experiments = ws,gen"},
       "experiments to run: ws (word sensitivity), gen (trained head after a one-word change)")
      ("models", &r.models, "rf,drf,raf,raf_relu",
       {"comma list: " + known_model_list(), "models = rf,raf"},
       models_meaning.c_str())
      ("gen-models", &r.gen_models, "",
       {"comma list of models; empty: models", "experiments = ws,gen\ngen-models = rf,raf"},
       "models of the gen experiment (comma list; empty: the same as models)")
      ("n", &r.n, "10,20,40", {"integer grid", "n = 8:64:log4"},
       "words per text: list (10,20,50) or range lo:hi:logM | lo:hi:linM | lo:hi:stepS")
      ("d", &r.d, "8",
       {"integer grid", "d = 64,128"},
       "embedding dimension (grid, as n)")
      ("gen-n", &r.gen_n, "",
       {"integer grid; empty: n", "experiments = gen\ngen-n = 16,24,32"},
       "words per text for the gen experiment (grid, as n; empty: the same as n)")
      ("gen-d", &r.gen_d, "",
       {"integer grid; empty: d", "experiments = gen\ngen-d = 16"},
       "embedding dimension for the gen experiment (grid; empty: the same as d)")
      ("k", &r.k, "1.0D",
       {"width grid: multiples of D = n*d, integers or ranges", "k = 0.125D"},
       "rf/drf width: multiples of D = n*d (1.0D, 0.5D) and/or integers or ranges")
      ("mlp-width", &r.mlp_width, "4d",
       {"width grid: multiples of d, integers or ranges", "mlp-width = 2d,4d"},
       "block's MLP width (grid; each width one point, stored as the task's k): multiples of d "
       "(4d, 0.5d) and/or integers or ranges; ignored without block")
      ("N", &r.N, "20",
       {"integer grid", "N = 20,40"},
       "gen training-set sizes (grid; N < p)")
      ("layers", &r.layers, "2",
       {"integer grid", "layers = 2,4"},
       "drf depth L (grid)")
      ("activation", &r.activation, "relu",
       {"relu, tanh or gelu", "activation = tanh"},
       "activation of rf, drf and block's MLP: relu or tanh; gelu for block's MLP only")
      ("heads", &r.heads, "4",
       {"integer grid, each dividing every d", "heads = 1,2,4"},
       "attention heads H of mhraf and block (grid; each head d/H wide); ignored without them")
      ("mask", &r.mask, "none",
       {"none or causal", "mask = causal"},
       "the attention models' mask: none, or causal (word j attends to words 0..j only); "
       "ignored without an attention model")
      ("rf-sampling", &r.rf_sampling, "full",
       {"full or marginal", "rf-sampling = marginal"},
       "rf weights: full, or marginal (just the examined words' blocks plus exact Gaussian "
       "residuals for the task's texts; same law of every result; S_upper then bounds the "
       "examined positions only); ignored without rf in the study")
      ("trials", &r.trials, std::to_string(defaults.grid.trials),
       {"integer >= 1", "trials = 20"},
       "independent trials per grid point")
      ("first-trial", &r.first_trial, "0",
       {"integer >= 0", "trials = 20\nfirst-trial = 20\nmax-trials = 40"},
       "index of the first trial run (an extension of a study by more trials: trials "
       "first-trial ... first-trial + trials - 1, the same texts and weights as those trials of "
       "the study run at once; needs max-trials)")
      ("max-trials", &r.max_trials, "0",
       {"integer >= 0", "max-trials = 100"},
       "the most trials per point the study may reach by extensions (0: none planned); fixes "
       "the random streams of every trial and the number of looks the report corrects for")
      ("select", &r.select, "",
       {"selectors: axis:value lists separated by ;", "select = model:raf;model:rf,n:20"},
       "grid points run (empty: all): selectors separated by ';', each a ','-list of axis:value "
       "(axes experiment, model, n, d, k, N, L, H, m), e.g. model:raf,d:384;model:rf,d:768")
      ("seed", &r.seed, "1",
       {"integer in [0, 4294967295]", "seed = 7"},
       "master seed, 0 ... 4294967295")
      ("positions", &r.positions, "all",
       {"all, first or random:m", "positions = random:4"},
       "word positions examined: all, first or random:m")
      ("words", &r.words, "1", {"integer grid", "words = 1,2,4"},
       "ws: numbers m of words changed at once (grid, as n; 1: the word sensitivity S, m >= 2: "
       "S_m); each m <= n")
      ("words-fraction", &r.words_fraction, "",
       {"comma list of fractions in (0, 1]", "words-fraction = 0.1,0.25"},
       "ws: fractions f in (0, 1] adding m = ceil(f*n) at each n (comma list; holds m/n fixed "
       "while n grows)")
      ("word-sets", &r.word_sets, "first",
       {"first, random:r or greedy", "words = 1,2\nword-sets = random:8"},
       "ws with m >= 2: the word sets examined: first (words 0..m-1), random:r (r random "
       "m-sets) or greedy (grown from the best single word)")
      ("training", &r.training, "finetune,retrain",
       {"comma list: finetune, retrain", "training = finetune"},
       "gen training modes: finetune, retrain")
      ("objective", &r.objective, "loss,align",
       {"comma list: loss, align", "objective = loss"},
       "gen Delta objectives: loss, align")
      ("data", &r.data, "synthetic",
       {"synthetic or embeddings:PATH", "data = embeddings:glove_brown.h5"},
       "data source: synthetic or embeddings:<path>")
      ("encoder", &r.encoder, "",
       {"path of an encoder folder", "encoder = analysis/datasets/cache/minilm_model"},
       "trained_attn, trained_layer and their twins: a pretrained BERT encoder's folder "
       "(config.json, model.safetensors); its weights' SHA-256 is checked on resume and against "
       "the data file's; ignored without those models")
      ("encoder-layer", &r.encoder_layer, "1",
       {"integer >= 1", "encoder-layer = 3"},
       "the encoder's layer l those models take (1 ... its layer count); embeddings data must "
       "hold layer l - 1's states in LayerNorm coordinates (docs/METHOD.md)")
      ("save-witness", switch_value(&r.save_witness),
       {"switch: true or false", "save-witness = true"},
       "store per task the witness (i*, Delta*), the sample X and small weights")
      ("purpose", &r.purpose, "claims",
       {"claims or descriptive", "purpose = descriptive"},
       "claims (the report judges the paper's claims on the study) or descriptive (a map, like "
       "the regime map: the report shows its rows as a breakdown only)");
  // clang-format on
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
