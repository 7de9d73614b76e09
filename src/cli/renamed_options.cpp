#include "cli/renamed_options.hpp"

#include <array>

#include "core/errors.hpp"

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

}  // namespace

void reject_renamed_options(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) continue;
    if (const Renamed* r = find(arg.substr(2, arg.find('=') - 2))) {
      throw InputError("--" + std::string(r->old_name) + ": now spelled " + r->option);
    }
  }
}

std::string renamed_key(const std::string& key) {
  const Renamed* r = find(key);
  return r ? r->key : "";
}

}  // namespace wordsens::cli
