#include "io/inputs/encoder_weights.hpp"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "io/inputs/safetensors.hpp"

namespace wordsens::io {
namespace {

using Json = nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError(path + ": " + what);
}

std::ifstream open_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot be read (" + std::string(std::strerror(errno)) + ")");
  return in;
}

Json read_json_file(const std::string& path) {
  std::ifstream in = open_binary(path);
  try {
    return Json::parse(in);
  } catch (const Json::exception& e) {
    fail(path, std::string("is not valid JSON (") + e.what() + ")");
  }
}

// The architecture the trained models implement, and its sizes.
struct EncoderConfig {
  Index d = 0, heads = 0, width = 0, layers = 0;
  double epsilon = 0.0;
};

EncoderConfig read_config(const std::string& path) {
  const Json config = read_json_file(path);
  if (!config.is_object()) fail(path, "is not a JSON object");
  const auto text = [&](const char* key, const char* fallback) -> std::string {
    if (!config.contains(key)) return fallback;
    if (!config[key].is_string()) fail(path, std::string(key) + " is not a string");
    return config[key].get<std::string>();
  };
  const auto positive = [&](const char* key) -> Index {
    if (!config.contains(key) || !config[key].is_number_integer() ||
        config[key].get<long long>() < 1) {
      fail(path, std::string(key) + " must be a positive integer");
    }
    return static_cast<Index>(config[key].get<long long>());
  };
  // The layer of bert_encoder.py: post-LN, GELU of the exact form ("gelu"; "gelu_new" is the tanh
  // approximation), absolute positions (which only layer 0 uses).
  if (const std::string model = text("model_type", "bert"); model != "bert") {
    fail(path, "model_type = \"" + model + "\", the trained models implement \"bert\" only");
  }
  if (const std::string act = text("hidden_act", "gelu"); act != "gelu") {
    fail(path,
         "hidden_act = \"" + act + "\", the trained models implement \"gelu\" (x*Phi(x)) only");
  }
  EncoderConfig c;
  c.d = positive("hidden_size");
  c.heads = positive("num_attention_heads");
  c.width = positive("intermediate_size");
  c.layers = positive("num_hidden_layers");
  if (c.d % c.heads != 0) {
    fail(path, "hidden_size " + std::to_string(c.d) + " is not a multiple of " +
                   std::to_string(c.heads) + " heads");
  }
  const auto eps = config.find("layer_norm_eps");
  if (eps == config.end() || !eps->is_number() || !(eps->get<double>() > 0.0)) {
    fail(path, "layer_norm_eps must be a positive number");
  }
  c.epsilon = eps->get<double>();
  return c;
}

}  // namespace

std::string encoder_weights_path(const std::string& folder) {
  return folder + "/model.safetensors";
}

EncoderLayer read_encoder_layer(const std::string& folder, Index layer) {
  const EncoderConfig c = read_config(folder + "/config.json");
  if (layer < 1 || layer > c.layers) {
    throw InputError("encoder-layer = " + std::to_string(layer) + ": the encoder in " + folder +
                     " has layers 1 ... " + std::to_string(c.layers));
  }
  const std::string path = encoder_weights_path(folder);
  SafetensorsFile file(path);
  EncoderLayer w;
  w.layer = layer;
  w.heads = c.heads;
  w.epsilon = c.epsilon;
  const Index d = c.d;
  const auto norm = [&](const std::string& prefix) {
    return LayerNormAffine{file.row(prefix + ".weight", d), file.row(prefix + ".bias", d)};
  };
  w.input = norm(layer == 1 ? std::string("embeddings.LayerNorm")
                            : "encoder.layer." + std::to_string(layer - 2) + ".output.LayerNorm");
  const std::string p = "encoder.layer." + std::to_string(layer - 1) + ".";
  const std::string a = p + "attention.";
  w.WQ = file.transposed(a + "self.query.weight", d, d);
  w.bQ = file.row(a + "self.query.bias", d);
  w.WK = file.transposed(a + "self.key.weight", d, d);
  w.bK = file.row(a + "self.key.bias", d);
  w.WV = file.transposed(a + "self.value.weight", d, d);
  w.bV = file.row(a + "self.value.bias", d);
  w.WO = file.transposed(a + "output.dense.weight", d, d);
  w.bO = file.row(a + "output.dense.bias", d);
  w.norm1 = norm(a + "output.LayerNorm");
  w.W1 = file.transposed(p + "intermediate.dense.weight", c.width, d);
  w.b1 = file.row(p + "intermediate.dense.bias", c.width);
  w.W2 = file.transposed(p + "output.dense.weight", d, c.width);
  w.b2 = file.row(p + "output.dense.bias", d);
  w.norm2 = norm(p + "output.LayerNorm");
  w.source = path;
  w.sha256 = file_sha256(path);
  w.check();
  return w;
}

std::string file_sha256(const std::string& path) {
  std::ifstream in = open_binary(path);
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                        &EVP_MD_CTX_free);
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 is not available (OpenSSL)");
  }
  std::vector<char> block(std::size_t{1} << 20);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got > 0) EVP_DigestUpdate(context.get(), block.data(), got);
  }
  if (in.bad()) fail(path, "cannot be read to its end");
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest.data(), &length);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int k = 0; k < length; ++k) {
    hex += kHex[digest[k] >> 4];
    hex += kHex[digest[k] & 15];
  }
  return hex;
}

std::string weights_fingerprint(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    fail(path, "cannot be read (" + std::string(std::strerror(errno)) + ")");
  }
  std::tm utc{};
  gmtime_r(&info.st_mtime, &utc);
  char mtime[32];
  std::strftime(mtime, sizeof mtime, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return "size=" + std::to_string(static_cast<long long>(info.st_size)) + " mtime=" + mtime +
         " content=sha256:" + file_sha256(path);
}

}  // namespace wordsens::io
