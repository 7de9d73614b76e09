#include "data/data_spec.hpp"

#include <string_view>

#include "core/errors.hpp"

namespace wordsens {
namespace {
constexpr std::string_view kEmbeddingsPrefix = "embeddings:";
}  // namespace

DataSpec DataSpec::parse(const std::string& text) {
  if (text == "synthetic") return {};
  if (text.rfind(kEmbeddingsPrefix, 0) == 0) {
    DataSpec spec{Kind::embeddings, text.substr(kEmbeddingsPrefix.size())};
    if (spec.path.empty()) throw InputError("data = '" + text + "': expected embeddings:<path>");
    return spec;
  }
  throw InputError("data = '" + text + "': expected synthetic or embeddings:<path>");
}

std::string DataSpec::to_string() const {
  return kind == Kind::synthetic ? "synthetic" : std::string(kEmbeddingsPrefix) + path;
}

}  // namespace wordsens
