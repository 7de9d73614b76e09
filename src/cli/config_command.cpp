// `wordsens config CONFIG [--key=value …] [--format=table|tsv|json]`: the study's configuration
// as a results file of it stores it (study/study_settings.hpp), without running, planning or
// reading any input: table prints config_text, tsv one row per key with its kind, json the values
// typed, as /config holds them. Scripts read a study's keys here instead of parsing its file.
#include <iostream>
#include <string>
#include <variant>

#include "cli/commands.hpp"
#include "cli/config.hpp"
#include "cli/exit_codes.hpp"
#include "cli/plan_export.hpp"
#include "study/grid_spec.hpp"
#include "study/study_settings.hpp"

namespace wordsens::cli {
namespace {

// A value as JSON: switches true/false, numbers as the text spells them, strings quoted, lists
// as arrays.
struct JsonValue {
  std::string operator()(bool x) const { return x ? "true" : "false"; }
  std::string operator()(std::int64_t x) const { return std::to_string(x); }
  std::string operator()(double x) const { return format_double(x); }
  std::string operator()(const std::string& x) const { return quoted(x); }
  template <typename T>
  std::string operator()(const std::vector<T>& xs) const {
    std::string out = "[";
    for (std::size_t i = 0; i < xs.size(); ++i) out += (i == 0 ? "" : ", ") + (*this)(xs[i]);
    return out + "]";
  }
};

void print_settings(const std::vector<StoredSetting>& settings, PlanFormat format) {
  switch (format) {
    case PlanFormat::table:
      std::cout << settings_text(settings);
      return;
    case PlanFormat::tsv:
      std::cout << "key\tkind\tvalue\n";
      for (const auto& s : settings) {
        std::cout << s.key << "\t" << to_string(s.kind) << "\t" << setting_text(s.kind, s.value)
                  << "\n";
      }
      return;
    case PlanFormat::json: {
      std::cout << "{";
      const char* separator = "\n  ";
      for (const auto& s : settings) {
        std::cout << separator << quoted(s.key) << ": " << std::visit(JsonValue{}, s.value);
        separator = ",\n  ";
      }
      std::cout << "\n}\n";
      return;
    }
  }
}

}  // namespace

int config_command(int argc, char** argv) {
  const RunOptions options = parse_run_options(argc, argv, /*read_encoder=*/false);
  if (options.help) {
    std::cout << "usage: wordsens config [CONFIG.ini | --config=CONFIG.ini] [--key=value …] "
                 "[--format=table|tsv|json]\n"
                 "Prints the study's configuration as a results file of it stores it, without "
                 "running it or reading\nits inputs: table, config_text's `key = value` lines; "
                 "tsv, key, kind and value per key; json,\nthe values typed (analysis/FORMAT.md, "
                 "\"/config\"). Takes the keys of `wordsens run` (wordsens run --help).\n";
    return kExitOk;
  }
  print_settings(study_settings(options.study), parse_plan_format(options.plan_format));
  return kExitOk;
}

}  // namespace wordsens::cli
