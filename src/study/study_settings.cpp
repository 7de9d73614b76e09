#include "study/study_settings.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "estimators/word_sensitivity.hpp"
#include "models/shared/model_kind.hpp"
#include "study/grid_spec.hpp"
#include "study/study.hpp"

namespace wordsens {
namespace {

// One key of the study: its kind, when a study names it (null: always), its value, and how the
// command line and docs/CONFIG.md describe it. The conditions keep the text of a study the same as
// before a key existed, so that its files still resume: a key is named only where it applies, and
// some only when not the default.
struct SettingRow {
  const char* key;
  SettingKind kind;
  bool (*applies)(const StudyConfig&);
  SettingValue (*value)(const StudyConfig&);
  SettingDescription description;
};

std::string bool_text(bool value) { return value ? "true" : "false"; }

// format_double writes 1e-07; --help has always shown 1e-7 (the same double).
std::string short_exponent(std::string text) {
  for (const char* sign : {"e-0", "e+0"}) {
    const auto at = text.find(sign);
    if (at != std::string::npos && at + 3 < text.size()) text.erase(at + 2, 1);
  }
  return text;
}

template <typename T>
std::vector<std::int64_t> integers(const std::vector<T>& values) {
  return {values.begin(), values.end()};
}

template <typename T>
std::vector<std::string> item_texts(const std::vector<T>& items) {
  std::vector<std::string> texts;
  for (const auto& item : items) texts.push_back(item.to_string());
  return texts;
}

template <typename T>
std::vector<std::string> names(const std::vector<T>& values) {
  std::vector<std::string> texts;
  for (const auto value : values) texts.push_back(to_string(value));
  return texts;
}

// clang-format off
// The rows, made once on first use (the catalogue's model list and the defaults of a study are
// only known then).
const std::vector<SettingRow>& rows() {
  static const std::vector<SettingRow> table = [] {
    const StudyConfig defaults;
    return std::vector<SettingRow>{
      {"N", SettingKind::integers, nullptr, [](const StudyConfig& c) -> SettingValue { return integers(c.grid.N); },
       {"20",
        "integer grid",
        "N = 20,40",
        "gen training-set sizes (grid; N < p)",
        false}},
      {"activation", SettingKind::text, nullptr, [](const StudyConfig& c) -> SettingValue { return to_string(c.activation); },
       {"relu",
        "relu, tanh or gelu",
        "activation = tanh",
        "activation of rf, drf and block's MLP: relu or tanh; gelu for block's MLP only",
        false}},
      {"budget-check", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.budget_check}; },
       {std::to_string(defaults.search.budget_check),
        "0, or an integer in [2, 16]",
        "budget-check = 4",
        "ws: 0 off; f in 2..16: trial 0 of every one-word grid point reruns its search with f times the "
         "evaluations and starts, seeded with the plain search's points (S_budget_check >= S)",
        false}},
      {"d", SettingKind::integers, nullptr, [](const StudyConfig& c) -> SettingValue { return integers(c.grid.d); },
       {"8",
        "integer grid",
        "d = 64,128",
        "embedding dimension (grid, as n)",
        false}},
      {"data", SettingKind::text, nullptr, [](const StudyConfig& c) -> SettingValue { return c.data.to_string(); },
       {"synthetic",
        "synthetic or embeddings:PATH",
        "data = embeddings:glove_brown.h5",
        "data source: synthetic or embeddings:<path>",
        false}},
      // Only with a model that reads them; the weights' digest is an input fingerprint (a changed
      // file is refused on resume, like changed data).
      {"encoder", SettingKind::text, has_encoder_model, [](const StudyConfig& c) -> SettingValue { return c.encoder_path; },
       {"",
        "path of an encoder folder",
        "encoder = analysis/datasets/cache/minilm_model",
        "trained_attn, trained_layer and their twins: a pretrained BERT encoder's folder "
         "(config.json, model.safetensors); its weights' SHA-256 is checked on resume and against "
         "the data file's; ignored without those models",
        false}},
      {"encoder-layer", SettingKind::integer, has_encoder_model, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.encoder_layer}; },
       {"1",
        "integer >= 1",
        "encoder-layer = 3",
        "the encoder's layer l those models take (1 ... its layer count); embeddings data must "
         "hold layer l - 1's states in LayerNorm coordinates (docs/METHOD.md)",
        false}},
      {"experiments", SettingKind::texts, nullptr, [](const StudyConfig& c) -> SettingValue { return names(c.grid.experiments); },
       {"ws",
        "comma list: ws, gen",
        "experiments = ws,gen",
        "experiments to run: ws (word sensitivity), gen (trained head after a one-word change)",
        false}},
      {"first-trial", SettingKind::integer, [](const StudyConfig& c) { return c.grid.first_trial > 0; },
       [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.grid.first_trial}; },
       {"0",
        "integer >= 0",
        "trials = 20\nfirst-trial = 20\nmax-trials = 40",
        "index of the first trial run (an extension of a study by more trials: trials "
         "first-trial ... first-trial + trials - 1, the same texts and weights as those trials of "
         "the study run at once; needs max-trials)",
        false}},
      {"gen-d", SettingKind::integers, nullptr, [](const StudyConfig& c) -> SettingValue { return integers(d_grid_of(c, Experiment::gen)); },
       {"",
        "integer grid; empty: d",
        "experiments = gen\ngen-d = 16",
        "embedding dimension for the gen experiment (grid; empty: the same as d)",
        false}},
      {"gen-models", SettingKind::texts, nullptr, [](const StudyConfig& c) -> SettingValue { return model_names(models_of(c, Experiment::gen)); },
       {"",
        "comma list of models; empty: models",
        "experiments = ws,gen\ngen-models = rf,raf",
        "models of the gen experiment (comma list; empty: the same as models)",
        false}},
      {"gen-n", SettingKind::integers, nullptr, [](const StudyConfig& c) -> SettingValue { return integers(n_grid_of(c, Experiment::gen)); },
       {"",
        "integer grid; empty: n",
        "experiments = gen\ngen-n = 16,24,32",
        "words per text for the gen experiment (grid, as n; empty: the same as n)",
        false}},
      {"guided-start", SettingKind::boolean, nullptr, [](const StudyConfig& c) -> SettingValue { return c.search.guided_start; },
       {bool_text(defaults.search.guided_start),
        "true or false",
        "guided-start = false",
        "also climb from the directions the model's weights suggest (true|false)",
        false}},
      // Only with a model of several heads (one H is written as before the heads grid existed).
      {"heads", SettingKind::integers, has_multi_head_model, [](const StudyConfig& c) -> SettingValue { return integers(c.grid.heads); },
       {"4",
        "integer grid, each dividing every d",
        "heads = 1,2,4",
        "attention heads H of mhraf and block (grid; each head d/H wide); ignored without them",
        false}},
      {"k", SettingKind::texts, nullptr, [](const StudyConfig& c) -> SettingValue { return item_texts(c.grid.k); },
       {"1.0D",
        "width grid: multiples of D = n*d, integers or ranges",
        "k = 0.125D",
        "rf/drf width: multiples of D = n*d (1.0D, 0.5D) and/or integers or ranges",
        false}},
      {"layers", SettingKind::integers, nullptr, [](const StudyConfig& c) -> SettingValue { return integers(c.grid.layers); },
       {"2",
        "integer grid",
        "layers = 2,4",
        "drf depth L (grid)",
        false}},
      // Only with an attention model, and only when not the default.
      {"mask", SettingKind::text, [](const StudyConfig& c) { return c.mask != AttentionMask::none && has_attention_model(c); },
       [](const StudyConfig& c) -> SettingValue { return to_string(c.mask); },
       {"none",
        "none or causal",
        "mask = causal",
        "the attention models' mask: none, or causal (word j attends to words 0..j only); "
         "ignored without an attention model",
        false}},
      {"max-evals", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.max_evals}; },
       {std::to_string(defaults.search.max_evals),
        "integer >= 1",
        "max-evals = 400",
        "ascent budget: objective evaluations per start (>= 1)",
        false}},
      {"max-trials", SettingKind::integer, [](const StudyConfig& c) { return c.grid.max_trials > 0; },
       [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.grid.max_trials}; },
       {"0",
        "integer >= 0",
        "max-trials = 100",
        "the most trials per point the study may reach by extensions (0: none planned); fixes "
         "the random streams of every trial and the number of looks the report corrects for",
        false}},
      {"min-total-sphere-starts", SettingKind::count_or_auto, nullptr,
       [](const StudyConfig& c) -> SettingValue { return std::int64_t{std::max(c.search.min_total_sphere_starts, -1)}; },
       {min_total_sphere_starts_text(defaults.search.min_total_sphere_starts),
        "integer >= 0, or auto",
        "min-total-sphere-starts = 16",
        "ws: at least this many sphere ascents in all, spread over the examined positions "
         "(positions = first gets this many); auto: 32 for raf and raf_relu, 0 for rf and drf",
        false}},
      // Only with a model with an MLP, and only when not the default (files before mlp-width
      // existed ran 4d).
      {"mlp-width", SettingKind::texts, [](const StudyConfig& c) { return has_mlp_model(c) && c.grid.mlp_width != StudyGrid{}.mlp_width; },
       [](const StudyConfig& c) -> SettingValue { return item_texts(c.grid.mlp_width); },
       {"4d",
        "width grid: multiples of d, integers or ranges",
        "mlp-width = 2d,4d",
        "block's MLP width (grid; each width one point, stored as the task's k): multiples of d "
         "(4d, 0.5d) and/or integers or ranges; ignored without block",
        false}},
      {"models", SettingKind::texts, nullptr, [](const StudyConfig& c) -> SettingValue { return model_names(c.grid.models); },
       {"rf,drf,raf,raf_relu",
        "comma list: " + known_model_list(),
        "models = rf,raf",
        "models: " + known_model_list() + " (comma list; the default: the paper's four)",
        false}},
      {"n", SettingKind::integers, nullptr, [](const StudyConfig& c) -> SettingValue { return integers(c.grid.n); },
       {"10,20,40",
        "integer grid",
        "n = 8:64:log4",
        "words per text: list (10,20,50) or range lo:hi:logM | lo:hi:linM | lo:hi:stepS",
        false}},
      {"near-origin-starts", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.near_origin_starts}; },
       {std::to_string(defaults.search.near_origin_starts),
        "integer >= 0",
        "near-origin-starts = 2",
        "ascents per position from 0.1*N(0, I) near the origin",
        false}},
      {"objective", SettingKind::texts, nullptr, [](const StudyConfig& c) -> SettingValue { return names(c.search.objectives); },
       {"loss,align",
        "comma list: loss, align",
        "objective = loss",
        "gen Delta objectives: loss, align",
        false}},
      {"positions", SettingKind::text, nullptr, [](const StudyConfig& c) -> SettingValue { return c.search.positions.to_string(); },
       {"all",
        "all, first or random:m",
        "positions = random:4",
        "word positions examined: all, first or random:m",
        false}},
      {"purpose", SettingKind::text, [](const StudyConfig& c) { return c.descriptive; },
       [](const StudyConfig&) -> SettingValue { return std::string("descriptive"); },
       {"claims",
        "claims or descriptive",
        "purpose = descriptive",
        "claims (the report judges the paper's claims on the study) or descriptive (a map, like "
         "the regime map: the report shows its rows as a breakdown only)",
        false}},
      // The race only when on (files before it existed searched without one and still resume).
      {"race-evaluations", SettingKind::integer, [](const StudyConfig& c) { return c.search.race_evaluations > 0; },
       [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.race_evaluations}; },
       {std::to_string(defaults.search.race_evaluations),
        "integer >= 0",
        "race-evaluations = 30",
        "ws: 0 off; e >= 1: every ascent climbs e evaluations, then only the race-survivors best of "
         "those still climbing, over all positions, go on to max-evals (where e < max-evals, d > 16 "
         "and the starts outnumber them)",
        false}},
      {"race-survivors", SettingKind::integer, [](const StudyConfig& c) { return c.search.race_evaluations > 0; },
       [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.race_survivors}; },
       {std::to_string(defaults.search.race_survivors),
        "integer >= 1",
        "race-survivors = 128",
        "ws: the ascents a race lets go on to max-evals",
        false}},
      {"rel-tol", SettingKind::real, nullptr, [](const StudyConfig& c) -> SettingValue { return c.search.rel_tol; },
       {short_exponent(format_double(defaults.search.rel_tol)),
        "number in [0, 1)",
        "rel-tol = 1e-6",
        "an ascent stops when its relative progress stays below this, in [0, 1)",
        false}},
      // Only when not the default and a model it applies to is in the study: without one, marginal
      // runs the same tasks as full, and the two must resume each other.
      {"rf-sampling", SettingKind::text, [](const StudyConfig& c) { return c.rf_sampling == RfSampling::marginal && has_marginal_sampler_model(c); },
       [](const StudyConfig&) -> SettingValue { return std::string("marginal"); },
       {"full",
        "full or marginal",
        "rf-sampling = marginal",
        "rf weights: full, or marginal (just the examined words' blocks plus exact Gaussian "
         "residuals for the task's texts; same law of every result; S_upper then bounds the "
         "examined positions only); ignored without rf in the study",
        false}},
      {"save-witness", SettingKind::boolean, nullptr, [](const StudyConfig& c) -> SettingValue { return c.save_witness; },
       {"",
        "switch: true or false",
        "save-witness = true",
        "store per task the witness (i*, Delta*), the sample X and small weights",
        true}},
      {"screen-points", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.screen_points}; },
       {std::to_string(defaults.search.screen_points),
        "integer >= 0",
        "screen-points = 64",
        "ws: random sphere points per position ranked by f alone to pick the sphere starts",
        false}},
      {"seed", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.seed}; },
       {"1",
        "integer in [0, 4294967295]",
        "seed = 7",
        "master seed, 0 ... 4294967295",
        false}},
      {"select", SettingKind::text, [](const StudyConfig& c) { return !c.grid.select.empty(); },
       [](const StudyConfig& c) -> SettingValue { return c.grid.select.to_string(); },
       {"",
        "selectors: axis:value lists separated by ;",
        "select = model:raf;model:rf,n:20",
        "grid points run (empty: all): selectors separated by ';', each a ','-list of axis:value "
         "(axes experiment, model, n, d, k, N, L, H, m), e.g. model:raf,d:384;model:rf,d:768",
        false}},
      {"sphere-starts", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.sphere_starts}; },
       {std::to_string(defaults.search.sphere_starts),
        "integer >= 0",
        "sphere-starts = 4",
        "ascents per position from random points on the sphere |Delta| = sqrt(d)",
        false}},
      {"training", SettingKind::texts, nullptr, [](const StudyConfig& c) -> SettingValue { return names(c.search.trainings); },
       {"finetune,retrain",
        "comma list: finetune, retrain",
        "training = finetune",
        "gen training modes: finetune, retrain",
        false}},
      {"trials", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.grid.trials}; },
       {std::to_string(defaults.grid.trials),
        "integer >= 1",
        "trials = 20",
        "independent trials per grid point",
        false}},
      {"upper-bound", SettingKind::boolean, nullptr, [](const StudyConfig& c) -> SettingValue { return c.search.upper_bound; },
       {bool_text(defaults.search.upper_bound),
        "true or false",
        "upper-bound = false",
        "ws: compute the certified upper bound S_upper where the model has one (true|false)",
        false}},
      // The words keys only when some task changes several words.
      {"word-sets", SettingKind::text, has_multi_word, [](const StudyConfig& c) -> SettingValue { return c.search.word_sets.to_string(); },
       {"first",
        "first, random:r or greedy",
        "words = 1,2\nword-sets = random:8",
        "ws with m >= 2: the word sets examined: first (words 0..m-1), random:r (r random "
         "m-sets) or greedy (grown from the best single word)",
        false}},
      {"words", SettingKind::integers, has_multi_word, [](const StudyConfig& c) -> SettingValue { return integers(c.grid.words); },
       {"1",
        "integer grid",
        "words = 1,2,4",
        "ws: numbers m of words changed at once (grid, as n; 1: the word sensitivity S, m >= 2: "
         "S_m); each m <= n",
        false}},
      {"words-fraction", SettingKind::reals, has_multi_word, [](const StudyConfig& c) -> SettingValue { return c.grid.words_fraction; },
       {"",
        "comma list of fractions in (0, 1]",
        "words-fraction = 0.1,0.25",
        "ws: fractions f in (0, 1] adding m = ceil(f*n) at each n (comma list; holds m/n fixed "
         "while n grows)",
        false}},
    };
  }();
  return table;
}
// clang-format on

template <typename T, typename Format>
std::string joined(const std::vector<T>& values, Format format) {
  std::string out;
  for (const auto& value : values) out += (out.empty() ? "" : ",") + format(value);
  return out;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  if (text.empty()) return items;
  std::size_t start = 0;
  for (std::size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1) {
    items.push_back(text.substr(start, comma - start));
  }
  items.push_back(text.substr(start));
  return items;
}

std::optional<std::int64_t> parse_integer(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_real(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

template <typename T, typename Parse>
std::optional<std::vector<T>> parse_list(const std::string& text, Parse parse) {
  std::vector<T> values;
  for (const auto& item : split_commas(text)) {
    const auto value = parse(item);
    if (!value) return std::nullopt;
    values.push_back(*value);
  }
  return values;
}

std::optional<SettingValue> parse_loosely(SettingKind kind, const std::string& text) {
  switch (kind) {
    case SettingKind::boolean:
      if (text == "true" || text == "false") return SettingValue{text == "true"};
      return std::nullopt;
    case SettingKind::integer:
      if (const auto value = parse_integer(text)) return SettingValue{*value};
      return std::nullopt;
    case SettingKind::count_or_auto:
      if (text == "auto") return SettingValue{std::int64_t{-1}};
      if (const auto value = parse_integer(text); value && *value >= 0) return SettingValue{*value};
      return std::nullopt;
    case SettingKind::real:
      if (const auto value = parse_real(text)) return SettingValue{*value};
      return std::nullopt;
    case SettingKind::text:
      return SettingValue{text};
    case SettingKind::integers:
      if (auto values = parse_list<std::int64_t>(text, parse_integer)) return SettingValue{*values};
      return std::nullopt;
    case SettingKind::reals:
      if (auto values = parse_list<double>(text, parse_real)) return SettingValue{*values};
      return std::nullopt;
    case SettingKind::texts:
      return SettingValue{split_commas(text)};
  }
  return std::nullopt;
}

}  // namespace

std::vector<StoredSetting> study_settings(const StudyConfig& config) {
  std::vector<StoredSetting> settings;
  for (const auto& row : rows()) {
    if (row.applies == nullptr || row.applies(config)) {
      settings.push_back({row.key, row.kind, row.value(config)});
    }
  }
  // Sorted by key, byte-wise: what makes the text canonical (the rows are written in that order
  // already; sorting keeps it so when a row is added out of place).
  std::sort(settings.begin(), settings.end(),
            [](const StoredSetting& a, const StoredSetting& b) { return a.key < b.key; });
  return settings;
}

std::string setting_text(SettingKind kind, const SettingValue& value) {
  const auto real = [](double x) { return format_double(x); };
  const auto integer = [](std::int64_t x) { return std::to_string(x); };
  const auto same = [](const std::string& x) { return x; };
  switch (kind) {
    case SettingKind::boolean:
      return std::get<bool>(value) ? "true" : "false";
    case SettingKind::integer:
      return integer(std::get<std::int64_t>(value));
    case SettingKind::count_or_auto:
      return min_total_sphere_starts_text(static_cast<int>(std::get<std::int64_t>(value)));
    case SettingKind::real:
      return real(std::get<double>(value));
    case SettingKind::text:
      return std::get<std::string>(value);
    case SettingKind::integers:
      return joined(std::get<std::vector<std::int64_t>>(value), integer);
    case SettingKind::reals:
      return joined(std::get<std::vector<double>>(value), real);
    case SettingKind::texts:
      return joined(std::get<std::vector<std::string>>(value), same);
  }
  return {};
}

std::optional<SettingValue> parse_setting(SettingKind kind, const std::string& text) {
  auto value = parse_loosely(kind, text);
  // Only the canonical spelling: `08` or `1e2` are not what a build writes for an integer.
  if (!value || setting_text(kind, *value) != text) return std::nullopt;
  return value;
}

std::vector<std::pair<std::string, SettingKind>> setting_kinds() {
  std::vector<std::pair<std::string, SettingKind>> kinds;
  for (const auto& row : rows()) kinds.emplace_back(row.key, row.kind);
  std::sort(kinds.begin(), kinds.end());
  return kinds;
}

const SettingDescription& setting_description(const std::string& key) {
  for (const auto& row : rows()) {
    if (key == row.key) return row.description;
  }
  throw std::logic_error("no study setting is named " + key);
}

std::optional<SettingKind> setting_kind(const std::string& key) {
  for (const auto& row : rows()) {
    if (key == row.key) return row.kind;
  }
  return std::nullopt;
}

std::string settings_text(const std::vector<StoredSetting>& settings) {
  std::string text;
  for (const auto& s : settings) text += s.key + " = " + setting_text(s.kind, s.value) + "\n";
  return text;
}

std::vector<StoredSetting> settings_of_text(const std::string& config_text) {
  const auto trim = [](const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r");
    const auto last = text.find_last_not_of(" \t\r");
    return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
  };
  std::vector<StoredSetting> settings;
  std::string section;  // an INI section of the oldest writers' texts: its keys are "section.key"
  std::istringstream lines(config_text);
  for (std::string line; std::getline(lines, line);) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = trim(line.substr(1, line.size() - 2)) + ".";
      continue;
    }
    const auto equals = line.find('=');
    if (equals == std::string::npos) continue;
    if (trim(line.substr(0, equals)).empty()) continue;  // no key: nothing the INI reader takes
    const std::string key = section + trim(line.substr(0, equals));
    const std::string text = trim(line.substr(equals + 1));
    const auto kind = setting_kind(key);
    const auto value = kind ? parse_setting(*kind, text) : std::nullopt;
    StoredSetting setting = value ? StoredSetting{key, *kind, *value}
                                  : StoredSetting{key, SettingKind::text, SettingValue{text}};
    // A key given twice: the last value, as the INI reader takes it.
    const auto same = std::find_if(settings.begin(), settings.end(),
                                   [&](const StoredSetting& s) { return s.key == key; });
    if (same != settings.end()) {
      *same = std::move(setting);
    } else {
      settings.push_back(std::move(setting));
    }
  }
  return settings;
}

const char* to_string(SettingKind kind) {
  switch (kind) {
    case SettingKind::boolean:
      return "boolean";
    case SettingKind::integer:
      return "integer";
    case SettingKind::count_or_auto:
      return "count or auto";
    case SettingKind::real:
      return "real";
    case SettingKind::text:
      return "text";
    case SettingKind::integers:
      return "integers";
    case SettingKind::reals:
      return "reals";
    case SettingKind::texts:
      return "texts";
  }
  return "?";
}

}  // namespace wordsens
