#pragma once
// A subset of a study's grid points (`select`): the points an extension of a study runs more
// trials at. A selection is a list of selectors; a point is selected when one selector matches
// it, and a selector matches when every axis it names has the point's value there.
//
//   select = model:raf,d:384;model:raf_relu,d:768
//
// Axes: experiment, model, n, d, k (the width: rf's and drf's features, block's MLP), N, L (drf
// depth), H (heads), m (changed words). The empty selection selects every point.
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "study/task.hpp"

namespace wordsens {

struct PointSelector {
  std::optional<Experiment> experiment;
  std::optional<ModelKind> model;
  std::optional<Index> n, d, k, N, layers, heads, words;

  [[nodiscard]] bool matches(const TaskSpec& point) const;
  /// "experiment:gen,model:rf,d:768" (axes in the order above).
  [[nodiscard]] std::string to_string() const;
};

class PointSelection {
 public:
  /// Parses `text`; throws InputError (one line starting with "select") on an
  /// unknown axis, a malformed value, an unknown model, an empty selector or an axis named
  /// twice. The `select` key's parser: a model's name becomes its kind here.
  [[nodiscard]] static PointSelection parse(const std::string& text);

  [[nodiscard]] bool empty() const { return selectors_.empty(); }
  [[nodiscard]] bool contains(const TaskSpec& point) const;
  [[nodiscard]] const std::vector<PointSelector>& selectors() const { return selectors_; }
  /// The canonical text: selectors sorted and without repeats, so that two spellings of one
  /// selection give one configuration.
  [[nodiscard]] std::string to_string() const;

 private:
  std::vector<PointSelector> selectors_;
};

}  // namespace wordsens
