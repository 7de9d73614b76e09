#include "cli/renamed_options.hpp"

#include <array>
#include <sstream>
#include <stdexcept>

namespace wordsens::cli {
namespace {

struct Renamed {
  const char* old_name;
  const char* option;  // the new spelling on a command line
  const char* key;     // … and in a configuration file
};

constexpr std::array<Renamed, 3> kRenamed{{
    {"origin-starts", "--near-origin-starts", "near-origin-starts"},
    {"no-guided-start", "--guided-start=false", "guided-start = false"},
    {"no-upper-bound", "--upper-bound=false", "upper-bound = false"},
}};

const Renamed* find(const std::string& name) {
  for (const auto& r : kRenamed) {
    if (name == r.old_name) return &r;
  }
  return nullptr;
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

void reject_renamed_options(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) continue;
    if (const Renamed* r = find(arg.substr(2, arg.find('=') - 2))) {
      throw std::invalid_argument("option --" + std::string(r->old_name) + " is now spelled " +
                                  r->option);
    }
  }
}

void reject_renamed_keys(const std::string& ini_text, const std::string& path) {
  std::istringstream in(ini_text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string text = trim(line);
    if (text.empty() || text[0] == '#' || text[0] == ';' || text[0] == '[') continue;
    if (const Renamed* r = find(trim(text.substr(0, text.find('='))))) {
      throw std::invalid_argument(path + ":" + std::to_string(number) + ": key " + r->old_name +
                                  " is now spelled " + r->key);
    }
  }
}

}  // namespace wordsens::cli
