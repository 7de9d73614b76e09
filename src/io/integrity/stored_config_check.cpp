// /config against config_text (format 1.11 on): the typed values must be the text's, key for key.
#include <optional>
#include <string>
#include <variant>

#include "io/format/schema.hpp"
#include "io/integrity/integrity.hpp"
#include "io/integrity/tally.hpp"
#include "study/study_settings.hpp"

namespace wordsens::io::detail {
namespace {

using Class = h5::AttributeValue::Class;

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

}  // namespace

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

}  // namespace wordsens::io::detail
