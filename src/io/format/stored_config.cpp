#include "io/format/stored_config.hpp"

#include <variant>

#include "io/format/format_doc.hpp"
#include "io/format/schema.hpp"
#include "study/study_settings.hpp"

namespace wordsens::io {
namespace {

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

}  // namespace wordsens::io
