#include "study/point_selection.hpp"

#include <algorithm>
#include <charconv>

#include "core/errors.hpp"

namespace wordsens {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

[[noreturn]] void refuse(const std::string& selector, const std::string& why) {
  throw InputError("select: '" + selector + "': " + why +
                   " (expected e.g. model:raf,d:384;model:rf,d:768; axes experiment, "
                   "model, n, d, k, N, L, H, m)");
}

Index positive_integer(const std::string& selector, const std::string& axis,
                       const std::string& value) {
  Index parsed = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (value.empty() || error != std::errc() || end != value.data() + value.size() || parsed < 1) {
    refuse(selector, axis + " = '" + value + "' is not a positive integer");
  }
  return parsed;
}

template <typename T>
void set_once(std::optional<T>& slot, T value, const std::string& selector,
              const std::string& axis) {
  if (slot) refuse(selector, "axis " + axis + " named twice");
  slot = std::move(value);
}

PointSelector parse_selector(const std::string& text) {
  PointSelector s;
  if (text.empty()) refuse(text, "an empty selector");
  for (const std::string& raw : split(text, ',')) {
    const std::string condition = trimmed(raw);
    const auto colon = condition.find(':');
    if (colon == std::string::npos) refuse(text, "'" + condition + "' is not axis:value");
    const std::string axis = trimmed(condition.substr(0, colon));
    const std::string value = trimmed(condition.substr(colon + 1));
    if (axis == "experiment") {
      try {
        set_once(s.experiment, parse_experiment(value), text, axis);
      } catch (const InputError& e) {
        if (s.experiment) throw;
        refuse(text, e.what());
      }
    } else if (axis == "model") {
      if (value.empty()) refuse(text, "an empty model");
      const std::optional<ModelKind> kind = find_model(value);
      if (!kind) refuse(text, "unknown model '" + value + "' (models: " + known_model_list() + ")");
      set_once(s.model, *kind, text, axis);
    } else if (axis == "n") {
      set_once(s.n, positive_integer(text, axis, value), text, axis);
    } else if (axis == "d") {
      set_once(s.d, positive_integer(text, axis, value), text, axis);
    } else if (axis == "k") {
      set_once(s.k, positive_integer(text, axis, value), text, axis);
    } else if (axis == "N") {
      set_once(s.N, positive_integer(text, axis, value), text, axis);
    } else if (axis == "L") {
      set_once(s.layers, positive_integer(text, axis, value), text, axis);
    } else if (axis == "H") {
      set_once(s.heads, positive_integer(text, axis, value), text, axis);
    } else if (axis == "m") {
      set_once(s.words, positive_integer(text, axis, value), text, axis);
    } else {
      refuse(text, "unknown axis '" + axis + "'");
    }
  }
  return s;
}

}  // namespace

bool PointSelector::matches(const TaskSpec& point) const {
  return (!experiment || *experiment == point.experiment) && (!model || *model == point.model) &&
         (!n || *n == point.n) && (!d || *d == point.d) && (!k || *k == point.k) &&
         (!N || *N == point.N) && (!layers || *layers == point.layers) &&
         (!heads || *heads == point.heads) && (!words || *words == point.words);
}

std::string PointSelector::to_string() const {
  std::vector<std::string> parts;
  if (experiment) parts.push_back("experiment:" + wordsens::to_string(*experiment));
  if (model) parts.push_back("model:" + wordsens::to_string(*model));
  if (n) parts.push_back("n:" + std::to_string(*n));
  if (d) parts.push_back("d:" + std::to_string(*d));
  if (k) parts.push_back("k:" + std::to_string(*k));
  if (N) parts.push_back("N:" + std::to_string(*N));
  if (layers) parts.push_back("L:" + std::to_string(*layers));
  if (heads) parts.push_back("H:" + std::to_string(*heads));
  if (words) parts.push_back("m:" + std::to_string(*words));
  std::string text;
  for (const auto& p : parts) text += (text.empty() ? "" : ",") + p;
  return text;
}

PointSelection PointSelection::parse(const std::string& text) {
  PointSelection selection;
  if (trimmed(text).empty()) return selection;
  for (const std::string& raw : split(text, ';')) {
    selection.selectors_.push_back(parse_selector(trimmed(raw)));
  }
  // Canonical: sorted by their text, without repeats.
  auto& s = selection.selectors_;
  std::sort(s.begin(), s.end(), [](const PointSelector& a, const PointSelector& b) {
    return a.to_string() < b.to_string();
  });
  s.erase(std::unique(s.begin(), s.end(),
                      [](const PointSelector& a, const PointSelector& b) {
                        return a.to_string() == b.to_string();
                      }),
          s.end());
  return selection;
}

bool PointSelection::contains(const TaskSpec& point) const {
  return selectors_.empty() ||
         std::any_of(selectors_.begin(), selectors_.end(),
                     [&](const PointSelector& s) { return s.matches(point); });
}

std::string PointSelection::to_string() const {
  std::string text;
  for (const auto& s : selectors_) text += (text.empty() ? "" : ";") + s.to_string();
  return text;
}

}  // namespace wordsens
