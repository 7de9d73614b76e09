#include "models/shared/model_kind.hpp"

#include <stdexcept>

#include "core/errors.hpp"

namespace wordsens {
// all_models() is the catalogue's (models/registry.cpp): the traits sit in the row that also
// builds and prices the model.

std::optional<ModelKind> find_model(std::string_view name) {
  for (const ModelTraits& t : all_models()) {
    if (t.name == name) return t.kind;
  }
  return std::nullopt;
}

ModelKind model_kind(std::string_view name) {
  if (const auto kind = find_model(name)) return *kind;
  throw InputError("unknown model '" + std::string(name) + "' (known: " + known_model_list() + ")");
}

const ModelTraits& traits(ModelKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  if (index >= all_models().size() || all_models()[index].kind != kind) {
    throw std::logic_error("the model catalogue has no row for kind " + std::to_string(index));
  }
  return all_models()[index];
}

std::string to_string(ModelKind kind) { return std::string(traits(kind).name); }

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const ModelTraits& t : all_models()) all.emplace_back(t.name);
    return all;
  }();
  return names;
}

std::vector<ModelKind> model_kinds(const std::vector<std::string>& names) {
  std::vector<ModelKind> kinds;
  kinds.reserve(names.size());
  for (const std::string& name : names) kinds.push_back(model_kind(name));
  return kinds;
}

std::vector<std::string> model_names(const std::vector<ModelKind>& kinds) {
  std::vector<std::string> names;
  names.reserve(kinds.size());
  for (const ModelKind kind : kinds) names.push_back(to_string(kind));
  return names;
}

std::string known_model_list(std::string_view separator) {
  std::string list;
  for (const ModelTraits& t : all_models()) {
    if (!list.empty()) list += separator;
    list += t.name;
  }
  return list;
}

}  // namespace wordsens
