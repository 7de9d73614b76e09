#include "study/config_text.hpp"

#include "study/config_keys.hpp"
#include "study/ini_text.hpp"
#include "study/study_keys.hpp"

namespace wordsens {

StudyConfig study_of_config_text(const std::string& text) {
  const std::string where = "configuration text";
  const std::vector<IniEntry> entries = parse_ini_text(text, where);
  // Every key is checked before any value is read, as for a configuration file.
  for (const IniEntry& entry : entries) {
    check_config_key(entry.key, where + ":" + std::to_string(entry.line) + ": ");
  }
  StudyKeyTexts keys;
  for (const IniEntry& entry : entries) {
    if (keys.has(entry.key)) keys[entry.key] = entry.value;  // a run's key: not the study's
  }
  return resolve_study(keys);
}

std::vector<TaskSpec> plan_of_config_text(const std::string& text) {
  return plan_tasks(study_of_config_text(text));
}

}  // namespace wordsens
