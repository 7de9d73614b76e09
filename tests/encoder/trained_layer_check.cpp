// The trained models against the numpy forward pass (analysis/datasets/bert_encoder.py), driven
// by tests/encoder/test_trained_models.py, which writes the reference with the encoder's own
// forward pass:
//
//   trained_layer_check FOLDER LAYER REFERENCE TOLERANCE
//
// FOLDER is the encoder (config.json, model.safetensors), read by the suite's one reader
// (io/inputs/encoder_weights.hpp). REFERENCE is a safetensors file of F64 tensors: U (n × d, the
// normalised states of layer LAYER − 1; n (1) its rows), attention and layer (n × d: MHA and the
// layer's output at X = γ₀ ⊙ U + β₀, the encoder's own hidden states), position (1) and delta (d),
// and attention_moved and layer_moved (the same at U with row `position` moved by delta). For both
// models it compares the plain φ(U), the position evaluator's base features, its φ at the move
// and the word-set evaluator's objective at the move, each as max |C++ − numpy| / max |numpy|.
// Prints the weights' SHA-256 and one line per comparison; exit 1 when one exceeds TOLERANCE,
// 2 on bad input.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include "io/inputs/encoder_weights.hpp"
#include "io/inputs/safetensors.hpp"
#include "models/shared/feature_map.hpp"

namespace {

using wordsens::Index;
using wordsens::Matrix;
using wordsens::Vector;

double relative(const Vector& ours, const Vector& reference) {
  return (ours - reference).cwiseAbs().maxCoeff() / reference.cwiseAbs().maxCoeff();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: trained_layer_check FOLDER LAYER REFERENCE TOLERANCE\n";
    return 2;
  }
  try {
    const std::string folder = argv[1];
    const Index layer = std::stol(argv[2]);
    const double tolerance = std::stod(argv[4]);
    auto encoder = std::make_shared<const wordsens::EncoderLayer>(
        wordsens::io::read_encoder_layer(folder, layer));
    const Index d = encoder->d();
    wordsens::io::SafetensorsFile reference(argv[3]);
    const auto n = static_cast<Index>(reference.read("n", {1})[0]);
    const Matrix U = reference.matrix("U", n, d);
    const auto position = static_cast<Index>(reference.read("position", {1})[0]);
    const Vector delta = reference.row("delta", d).transpose();
    std::cout << "sha256 " << encoder->sha256 << "\n";
    bool ok = true;
    const std::array<std::pair<wordsens::ModelKind, std::string>, 2> models{
        {{wordsens::ModelKind::trained_attn, "attention"},
         {wordsens::ModelKind::trained_layer, "layer"}}};
    for (const auto& [kind, name] : models) {
      wordsens::ModelSpec spec{kind, n, d, 0, 1, wordsens::Activation::relu};
      spec.encoder = encoder;
      const auto model = wordsens::make_feature_map(spec, {1, 0});
      const Matrix at_u = reference.matrix(name, n, d);
      const Matrix moved = reference.matrix(name + "_moved", n, d);
      const auto evaluator = model->at_position(U, position);
      Vector fast;
      evaluator->features_at(delta, fast);
      Vector objective;
      const std::array<Index, 1> word{position};
      const auto word_set = wordsens::require_word_sets(*model).at_word_set(U, word);
      word_set->sensitivity_objective(delta, objective, nullptr);
      const double expected = (moved - at_u).squaredNorm();
      const std::array<std::pair<std::string, double>, 4> checks{{
          {"plain", relative(model->features(U), wordsens::vec(at_u))},
          {"evaluator_base", relative(evaluator->base_features(), wordsens::vec(at_u))},
          {"evaluator_moved", relative(fast, wordsens::vec(moved))},
          {"word_set_objective", std::abs(objective(0) - expected) / expected},
      }};
      for (const auto& [what, difference] : checks) {
        std::cout << name << " " << what << " " << difference << "\n";
        ok = ok && difference <= tolerance;
      }
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "trained_layer_check: " << e.what() << "\n";
    return 2;
  }
}
