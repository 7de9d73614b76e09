// The `encoder` and `encoder-layer` keys: the trained models' weights, read once per process
// through the io layer's one reader (io/inputs/encoder_weights.hpp), and the checks that tie them
// to the study's data.
#include <memory>
#include <string>

#include "cli/config.hpp"
#include "io/inputs/encoder_weights.hpp"

namespace wordsens::cli {

void load_encoder(StudyConfig& study) {
  if (!has_encoder_model(study)) return;
  study.encoder = std::make_shared<const EncoderLayer>(
      io::read_encoder_layer(study.encoder_path, study.encoder_layer));
}

void check_encoder_data(const StudyConfig& study, const std::string& path,
                        const std::function<std::string(const std::string&)>& attribute) {
  if (!has_encoder_model(study) || study.encoder == nullptr) return;
  const EncoderLayer& encoder = *study.encoder;
  const std::string layer = std::to_string(encoder.layer);
  const std::string wanted = std::to_string(encoder.layer - 1);
  const std::string intro = "data = embeddings:" + path + ": the trained models of layer " + layer +
                            " take the states of layer " + wanted;
  // Built by analysis/datasets/encoder_brown.py --layer <l-1> --coordinates normalised.
  const std::string build = " (encoder_brown.py --layer " + wanted + " --coordinates normalised)";
  if (attribute("layer") != wanted) {
    throw InputError(intro + ", the file holds layer '" + attribute("layer") + "'" + build);
  }
  if (attribute("coordinates") != "normalised") {
    throw InputError(intro +
                     " in LayerNorm coordinates (the normalised rows the model's gain and bias "
                     "act on); the file holds coordinates '" +
                     attribute("coordinates") + "'" + build);
  }
  if (attribute("embedding_weights_sha256") != encoder.sha256) {
    throw InputError(intro + " of the same weights: the file's were SHA-256 '" +
                     attribute("embedding_weights_sha256") + "', " + encoder.source + " is " +
                     encoder.sha256);
  }
}

}  // namespace wordsens::cli
