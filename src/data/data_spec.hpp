#pragma once
// Which texts a study reads (the `data` key): the synthetic ones, or the sequences of an
// embeddings file. Parsed once, with the rest of the configuration; the command line opens the
// file it names (cli/config_data_source.cpp).
#include <string>

namespace wordsens {

struct DataSpec {
  enum class Kind { synthetic, embeddings };
  Kind kind = Kind::synthetic;
  std::string path;  // the embeddings file

  /// "synthetic" or "embeddings:<path>" (a non-empty path); throws InputError (one
  /// line naming the key) otherwise.
  static DataSpec parse(const std::string& text);
  /// The spelling parse() reads, as the configuration text stores it.
  [[nodiscard]] std::string to_string() const;
};

}  // namespace wordsens
