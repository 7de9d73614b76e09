#include "cli/renamed_options.hpp"

#include <string>

#include "core/errors.hpp"
#include "study/config_keys.hpp"

namespace wordsens::cli {

void reject_renamed_options(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) continue;
    if (const RenamedKey* r = renamed_key(arg.substr(2, arg.find('=') - 2))) {
      throw InputError("--" + std::string(r->old_name) + ": now spelled " + r->option);
    }
  }
}

}  // namespace wordsens::cli
