#pragma once
// The study's settings: one row per key of the configuration, with how the command line and
// docs/CONFIG.md describe it, the kind of its value and the rule that says when a study names it.
// canonical_text is made from these rows, and the file's /config group holds the same values
// typed (format 1.11), so that a reader takes `n` as integers rather than parsing the text again.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace wordsens {

struct StudyConfig;

/// How a setting's value is typed. Its text is the value's canonical spelling: integers in
/// decimal, reals in the shortest form that reads back exactly, lists joined by ','.
enum class SettingKind {
  boolean,        // true | false
  integer,        // int64
  count_or_auto,  // int64 ≥ 0, or −1 for `auto`
  real,           // float64
  text,           // a string (a spelling the study parses itself: data, positions, select …)
  integers,       // int64 list (a grid as the study resolved it)
  reals,          // float64 list
  texts,          // string list (names, or grid items such as `1D`)
};

using SettingValue =
    std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>,
                 std::vector<double>, std::vector<std::string>>;

struct StoredSetting {
  std::string key;
  SettingKind kind = SettingKind::text;
  SettingValue value;
  friend bool operator==(const StoredSetting&, const StoredSetting&) = default;
};

/// How the command line (--help) and docs/CONFIG.md describe a study key, next to its kind and
/// value: the one description of the key.
struct SettingDescription {
  std::string default_text;  // as the file would write it (a switch has none)
  std::string type;          // the form of its values
  std::string example;       // a configuration using it (lines with the keys it needs)
  std::string meaning;
  bool is_switch = false;  // `--key` alone means true (save-witness)
};

/// The description of a study key; std::logic_error for a key the study does not have.
[[nodiscard]] const SettingDescription& setting_description(const std::string& key);

/// The settings a study names, sorted by key: every key that can change a result, the optional
/// ones only where they apply (so that files written before a key existed still resume).
[[nodiscard]] std::vector<StoredSetting> study_settings(const StudyConfig& config);

/// `key = text` lines of the settings, in their order.
[[nodiscard]] std::string settings_text(const std::vector<StoredSetting>& settings);

/// The canonical text of a value of that kind.
[[nodiscard]] std::string setting_text(SettingKind kind, const SettingValue& value);

/// The value whose canonical text is `text`, or nothing when `text` is not one (a value of
/// another kind, or one spelled otherwise).
[[nodiscard]] std::optional<SettingValue> parse_setting(SettingKind kind, const std::string& text);

/// Every study key with its kind, sorted by key.
[[nodiscard]] std::vector<std::pair<std::string, SettingKind>> setting_kinds();

/// The kind of a study key; nothing for a key the study does not have.
[[nodiscard]] std::optional<SettingKind> setting_kind(const std::string& key);

/// A stored configuration text (`key = value` lines) as settings, in its order: each value typed
/// by its key's kind, as text when the key is not a study key (`shard`) or its value is not in
/// that kind's canonical spelling (a text an older build wrote otherwise). Read as the INI reader
/// reads it: blank lines and comments skipped, a `[section]`'s keys named `section.key`, a key
/// given twice taking its last value.
[[nodiscard]] std::vector<StoredSetting> settings_of_text(const std::string& config_text);

/// The name of a kind as analysis/FORMAT.md and the error messages give it.
[[nodiscard]] const char* to_string(SettingKind kind);

}  // namespace wordsens
