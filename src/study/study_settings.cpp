#include "study/study_settings.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <sstream>

#include "estimators/word_sensitivity.hpp"
#include "models/shared/model_kind.hpp"
#include "study/grid_spec.hpp"
#include "study/study.hpp"

namespace wordsens {
namespace {

// One key of the stored configuration: its kind, when a study names it (null: always) and its
// value. The conditions keep the text of a study the same as before a key existed, so that its
// files still resume: a key is named only where it applies, and some only when not the default.
struct SettingRow {
  const char* key;
  SettingKind kind;
  bool (*applies)(const StudyConfig&);
  SettingValue (*value)(const StudyConfig&);
};

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
const SettingRow kRows[] = {
    {"N", SettingKind::integers, nullptr, [](const StudyConfig& c) -> SettingValue { return integers(c.grid.N); }},
    {"activation", SettingKind::text, nullptr, [](const StudyConfig& c) -> SettingValue { return to_string(c.activation); }},
    {"budget-check", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.budget_check}; }},
    {"d", SettingKind::integers, nullptr, [](const StudyConfig& c) -> SettingValue { return integers(c.grid.d); }},
    {"data", SettingKind::text, nullptr, [](const StudyConfig& c) -> SettingValue { return c.data.to_string(); }},
    // Only with a model that reads them; the weights' digest is an input fingerprint (a changed
    // file is refused on resume, like changed data).
    {"encoder", SettingKind::text, has_encoder_model, [](const StudyConfig& c) -> SettingValue { return c.encoder_path; }},
    {"encoder-layer", SettingKind::integer, has_encoder_model, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.encoder_layer}; }},
    {"experiments", SettingKind::texts, nullptr, [](const StudyConfig& c) -> SettingValue { return names(c.grid.experiments); }},
    {"first-trial", SettingKind::integer, [](const StudyConfig& c) { return c.grid.first_trial > 0; },
     [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.grid.first_trial}; }},
    {"gen-d", SettingKind::integers, nullptr, [](const StudyConfig& c) -> SettingValue { return integers(d_grid_of(c, Experiment::gen)); }},
    {"gen-models", SettingKind::texts, nullptr, [](const StudyConfig& c) -> SettingValue { return model_names(models_of(c, Experiment::gen)); }},
    {"gen-n", SettingKind::integers, nullptr, [](const StudyConfig& c) -> SettingValue { return integers(n_grid_of(c, Experiment::gen)); }},
    {"guided-start", SettingKind::boolean, nullptr, [](const StudyConfig& c) -> SettingValue { return c.search.guided_start; }},
    // Only with a model of several heads (one H is written as before the heads grid existed).
    {"heads", SettingKind::integers, has_multi_head_model, [](const StudyConfig& c) -> SettingValue { return integers(c.grid.heads); }},
    {"k", SettingKind::texts, nullptr, [](const StudyConfig& c) -> SettingValue { return item_texts(c.grid.k); }},
    {"layers", SettingKind::integers, nullptr, [](const StudyConfig& c) -> SettingValue { return integers(c.grid.layers); }},
    // Only with an attention model, and only when not the default.
    {"mask", SettingKind::text, [](const StudyConfig& c) { return c.mask != AttentionMask::none && has_attention_model(c); },
     [](const StudyConfig& c) -> SettingValue { return to_string(c.mask); }},
    {"max-evals", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.max_evals}; }},
    {"max-trials", SettingKind::integer, [](const StudyConfig& c) { return c.grid.max_trials > 0; },
     [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.grid.max_trials}; }},
    {"min-total-sphere-starts", SettingKind::count_or_auto, nullptr,
     [](const StudyConfig& c) -> SettingValue { return std::int64_t{std::max(c.search.min_total_sphere_starts, -1)}; }},
    // Only with a model with an MLP, and only when not the default (files before mlp-width
    // existed ran 4d).
    {"mlp-width", SettingKind::texts, [](const StudyConfig& c) { return has_mlp_model(c) && c.grid.mlp_width != StudyGrid{}.mlp_width; },
     [](const StudyConfig& c) -> SettingValue { return item_texts(c.grid.mlp_width); }},
    {"models", SettingKind::texts, nullptr, [](const StudyConfig& c) -> SettingValue { return model_names(c.grid.models); }},
    {"n", SettingKind::integers, nullptr, [](const StudyConfig& c) -> SettingValue { return integers(c.grid.n); }},
    {"near-origin-starts", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.near_origin_starts}; }},
    {"objective", SettingKind::texts, nullptr, [](const StudyConfig& c) -> SettingValue { return names(c.search.objectives); }},
    {"positions", SettingKind::text, nullptr, [](const StudyConfig& c) -> SettingValue { return c.search.positions.to_string(); }},
    {"purpose", SettingKind::text, [](const StudyConfig& c) { return c.descriptive; },
     [](const StudyConfig&) -> SettingValue { return std::string("descriptive"); }},
    // The race only when on (files before it existed searched without one and still resume).
    {"race-evaluations", SettingKind::integer, [](const StudyConfig& c) { return c.search.race_evaluations > 0; },
     [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.race_evaluations}; }},
    {"race-survivors", SettingKind::integer, [](const StudyConfig& c) { return c.search.race_evaluations > 0; },
     [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.race_survivors}; }},
    {"rel-tol", SettingKind::real, nullptr, [](const StudyConfig& c) -> SettingValue { return c.search.rel_tol; }},
    // Only when not the default and a model it applies to is in the study: without one, marginal
    // runs the same tasks as full, and the two must resume each other.
    {"rf-sampling", SettingKind::text, [](const StudyConfig& c) { return c.rf_sampling == RfSampling::marginal && has_marginal_sampler_model(c); },
     [](const StudyConfig&) -> SettingValue { return std::string("marginal"); }},
    {"save-witness", SettingKind::boolean, nullptr, [](const StudyConfig& c) -> SettingValue { return c.save_witness; }},
    {"screen-points", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.screen_points}; }},
    {"seed", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.seed}; }},
    {"select", SettingKind::text, [](const StudyConfig& c) { return !c.grid.select.empty(); },
     [](const StudyConfig& c) -> SettingValue { return c.grid.select.to_string(); }},
    {"sphere-starts", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.search.sphere_starts}; }},
    {"training", SettingKind::texts, nullptr, [](const StudyConfig& c) -> SettingValue { return names(c.search.trainings); }},
    {"trials", SettingKind::integer, nullptr, [](const StudyConfig& c) -> SettingValue { return std::int64_t{c.grid.trials}; }},
    {"upper-bound", SettingKind::boolean, nullptr, [](const StudyConfig& c) -> SettingValue { return c.search.upper_bound; }},
    // The words keys only when some task changes several words.
    {"word-sets", SettingKind::text, has_multi_word, [](const StudyConfig& c) -> SettingValue { return c.search.word_sets.to_string(); }},
    {"words", SettingKind::integers, has_multi_word, [](const StudyConfig& c) -> SettingValue { return integers(c.grid.words); }},
    {"words-fraction", SettingKind::reals, has_multi_word, [](const StudyConfig& c) -> SettingValue { return c.grid.words_fraction; }},
};
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
  for (const auto& row : kRows) {
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
  for (const auto& row : kRows) kinds.emplace_back(row.key, row.kind);
  std::sort(kinds.begin(), kinds.end());
  return kinds;
}

std::optional<SettingKind> setting_kind(const std::string& key) {
  for (const auto& row : kRows) {
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
