#include "models/shared/encoder_layer.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace wordsens {

void EncoderLayer::check() const {
  const Index dim = d(), w = width();
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("encoder layer: " + what);
  };
  if (dim < 1) fail("no query matrix");
  if (heads < 1 || dim % heads != 0) {
    fail(std::to_string(heads) + " heads do not divide d = " + std::to_string(dim));
  }
  if (!(epsilon > 0.0)) fail("LayerNorm epsilon must be positive");
  const auto square = [&](const Matrix& M, const char* name) {
    if (M.rows() != dim || M.cols() != dim) fail(std::string(name) + " is not d x d");
  };
  const auto row = [&](const RowVector& v, Index size, const char* name) {
    if (v.size() != size)
      fail(std::string(name) + " has " + std::to_string(v.size()) + " entries, expected " +
           std::to_string(size));
  };
  square(WQ, "WQ");
  square(WK, "WK");
  square(WV, "WV");
  square(WO, "WO");
  row(bQ, dim, "bQ");
  row(bK, dim, "bK");
  row(bV, dim, "bV");
  row(bO, dim, "bO");
  for (const auto& [norm, name] :
       {std::pair{&input, "input LayerNorm"}, std::pair{&norm1, "LayerNorm 1"},
        std::pair{&norm2, "LayerNorm 2"}}) {
    row(norm->gamma, dim, name);
    row(norm->beta, dim, name);
  }
  if (w < 1 || W1.rows() != dim) fail("W1 is not d x width");
  if (W2.rows() != w || W2.cols() != dim) fail("W2 is not width x d");
  row(b1, w, "b1");
  row(b2, dim, "b2");
}

}  // namespace wordsens
