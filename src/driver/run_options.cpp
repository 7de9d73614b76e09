#include "driver/run_options.hpp"

#include <sstream>

namespace wordsens {

std::string config_text(const RunOptions& options) {
  std::string text = canonical_text(options.study);
  if (!options.shard.is_whole()) {
    // Keep the lines sorted: insert `shard = …` at its place.
    std::istringstream in(text);
    std::string line, out;
    bool inserted = false;
    const std::string shard_line = "shard = " + options.shard.to_string();
    while (std::getline(in, line)) {
      if (!inserted && line > shard_line) {
        out += shard_line + "\n";
        inserted = true;
      }
      out += line + "\n";
    }
    if (!inserted) out += shard_line + "\n";
    text = out;
  }
  return text;
}

}  // namespace wordsens
