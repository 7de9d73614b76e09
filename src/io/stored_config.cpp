#include "io/stored_config.hpp"

#include <optional>
#include <variant>

#include "io/file_contents.hpp"
#include "io/results_file.hpp"
#include "io/schema.hpp"
#include "io/tally.hpp"
#include "study/study_settings.hpp"

namespace wordsens::io {
namespace {

using Class = h5::AttributeValue::Class;

void write_setting(const h5::Handle& group, const StoredSetting& s) {
  switch (s.kind) {
    case SettingKind::boolean:
      h5::write_bool_attribute(group, s.key, std::get<bool>(s.value));
      return;
    case SettingKind::integer:
    case SettingKind::count_or_auto:
      h5::write_attribute(group, s.key, std::get<std::int64_t>(s.value));
      return;
    case SettingKind::real:
      h5::write_attribute(group, s.key, std::get<double>(s.value));
      return;
    case SettingKind::text:
      h5::write_attribute(group, s.key, std::get<std::string>(s.value));
      return;
    case SettingKind::integers:
      h5::write_attribute(group, s.key, std::get<std::vector<std::int64_t>>(s.value));
      return;
    case SettingKind::reals:
      h5::write_attribute(group, s.key, std::get<std::vector<double>>(s.value));
      return;
    case SettingKind::texts:
      h5::write_attribute(group, s.key, std::get<std::vector<std::string>>(s.value));
      return;
  }
}

// The stored attribute as a value of `kind`; nothing when its type or shape is another kind's.
std::optional<SettingValue> stored_value(const h5::AttributeValue& a, SettingKind kind) {
  const bool one = a.scalar && (a.integers.size() + a.reals.size() + a.strings.size()) == 1;
  switch (kind) {
    case SettingKind::boolean:
      if (a.type == Class::boolean && one) return SettingValue{a.integers[0] != 0};
      return std::nullopt;
    case SettingKind::integer:
    case SettingKind::count_or_auto:
      if (a.type == Class::integer && one) return SettingValue{a.integers[0]};
      return std::nullopt;
    case SettingKind::real:
      if (a.type == Class::floating && one) return SettingValue{a.reals[0]};
      return std::nullopt;
    case SettingKind::text:
      if (a.type == Class::string && one) return SettingValue{a.strings[0]};
      return std::nullopt;
    case SettingKind::integers:
      if (a.type == Class::integer && !a.scalar) return SettingValue{a.integers};
      return std::nullopt;
    case SettingKind::reals:
      if (a.type == Class::floating && !a.scalar) return SettingValue{a.reals};
      return std::nullopt;
    case SettingKind::texts:
      if (a.type == Class::string && !a.scalar) return SettingValue{a.strings};
      return std::nullopt;
  }
  return std::nullopt;
}

// How a kind is stored, as FORMAT.md says it.
const char* stored_as(SettingKind kind) {
  switch (kind) {
    case SettingKind::boolean:
      return "bool (h5py's: an int8 enum FALSE = 0, TRUE = 1)";
    case SettingKind::integer:
      return "int64";
    case SettingKind::count_or_auto:
      return "int64 (−1: auto)";
    case SettingKind::real:
      return "float64";
    case SettingKind::text:
      return "string";
    case SettingKind::integers:
      return "int64[]";
    case SettingKind::reals:
      return "float64[]";
    case SettingKind::texts:
      return "string[]";
  }
  return "?";
}

}  // namespace

std::string stored_config_markdown() {
  std::string text = "| key | kind | stored as |\n|---|---|---|\n";
  for (const auto& [key, kind] : setting_kinds()) {
    text += "| `" + key + "` | " + to_string(kind) + " | " + stored_as(kind) + " |\n";
  }
  return text;
}

void write_stored_config(const h5::Handle& file, const std::string& config_text) {
  const h5::Handle group = h5::create_group(file, schema::kConfig);
  for (const auto& setting : settings_of_text(config_text)) write_setting(group, setting);
}

void check_stored_config(const h5::Handle& file, int minor, const std::string& config_text,
                         Diagnosis& d) {
  if (minor < schema::kConfigMinor) return;
  if (!h5::exists(file, schema::kConfig + 1)) {
    d.problems.push_back(std::string("the group ") + schema::kConfig + " is missing");
    return;
  }
  const h5::Handle group = h5::open_group(file, schema::kConfig);
  const auto settings = settings_of_text(config_text);
  // By name, then by count: listing the attributes of a damaged header could crash HDF5 1.10.
  detail::Tally differs(std::string(schema::kConfig) + " differs from config_text");
  for (const auto& s : settings) {
    if (!h5::has_attribute(group, s.key)) {
      differs.add(s.key + " is missing");
      continue;
    }
    const auto value = stored_value(h5::read_attribute_value(group, s.key), s.kind);
    if (!value) {
      differs.add(s.key + " is not stored as " + to_string(s.kind));
    } else if (*value != s.value) {
      differs.add(s.key + " = " + setting_text(s.kind, *value) + ", config_text " +
                  setting_text(s.kind, s.value));
    }
  }
  const std::size_t stored = h5::attribute_count(group);
  if (stored != settings.size()) {
    differs.add(std::to_string(stored) + " keys, config_text " + std::to_string(settings.size()));
  }
  differs.report(d.problems);
}

}  // namespace wordsens::io
