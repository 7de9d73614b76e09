// The encoder weights reader (io/inputs/encoder_weights.hpp, io/inputs/safetensors.hpp): a BERT
// folder written here by hand (config.json and a safetensors file of known values) is read back
// layer by layer, matrices transposed to act on rows; every malformed file is refused with one line
// naming it; SHA-256 against the NIST vectors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/inputs/encoder_weights.hpp"
#include "io/inputs/safetensors.hpp"
#include "io_test_support.hpp"

namespace wordsens::io {
namespace {

namespace fs = std::filesystem;

struct Tensor {
  std::vector<Index> shape;
  std::vector<double> values;
  std::string dtype = "F32";
};
using Tensors = std::map<std::string, Tensor>;

constexpr Index kD = 4, kHeads = 2, kWidth = 6, kLayers = 2;

// Entry k of tensor number `which`: distinct values everywhere, so that a transposition or a
// wrong tensor shows.
double value_of(int which, Index k) { return 0.25 * which + 0.001 * static_cast<double>(k); }

Tensors bert_tensors() {
  Tensors t;
  int which = 1;
  const auto add = [&](const std::string& name, std::vector<Index> shape) {
    Index count = 1;
    for (const Index s : shape) count *= s;
    Tensor tensor{std::move(shape), {}};
    for (Index k = 0; k < count; ++k) tensor.values.push_back(value_of(which, k));
    t[name] = tensor;
    ++which;
  };
  add("embeddings.LayerNorm.weight", {kD});
  add("embeddings.LayerNorm.bias", {kD});
  for (Index l = 0; l < kLayers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    for (const char* part : {"query", "key", "value"}) {
      add(p + "attention.self." + part + ".weight", {kD, kD});
      add(p + "attention.self." + part + ".bias", {kD});
    }
    add(p + "attention.output.dense.weight", {kD, kD});
    add(p + "attention.output.dense.bias", {kD});
    add(p + "attention.output.LayerNorm.weight", {kD});
    add(p + "attention.output.LayerNorm.bias", {kD});
    add(p + "intermediate.dense.weight", {kWidth, kD});
    add(p + "intermediate.dense.bias", {kWidth});
    add(p + "output.dense.weight", {kD, kWidth});
    add(p + "output.dense.bias", {kD});
    add(p + "output.LayerNorm.weight", {kD});
    add(p + "output.LayerNorm.bias", {kD});
  }
  return t;
}

// The safetensors layout: length, JSON header, data; `edit_header` may rewrite the header text.
void write_safetensors(const fs::path& path, const Tensors& tensors,
                       const std::function<void(std::string&)>& edit_header = {}) {
  std::string header = "{\"__metadata__\":{\"format\":\"pt\"}";
  std::string data;
  for (const auto& [name, t] : tensors) {
    const std::size_t begin = data.size();
    for (const double v : t.values) {
      if (t.dtype == "F64") {
        data.append(reinterpret_cast<const char*>(&v), 8);
      } else {
        const auto f = static_cast<float>(v);
        data.append(reinterpret_cast<const char*>(&f), 4);
      }
    }
    std::string shape;
    for (const Index s : t.shape) shape += (shape.empty() ? "" : ",") + std::to_string(s);
    header += ",\"" + name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[" + shape +
              "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(data.size()) +
              "]}";
  }
  header += "}";
  if (edit_header) edit_header(header);
  const std::uint64_t length = header.size();
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&length), 8);
  out << header << data;
}

std::string config_json(const std::string& act = "gelu") {
  return "{\"model_type\": \"bert\", \"hidden_act\": \"" + act +
         "\", \"hidden_size\": " + std::to_string(kD) +
         ", \"num_attention_heads\": " + std::to_string(kHeads) +
         ", \"intermediate_size\": " + std::to_string(kWidth) +
         ", \"num_hidden_layers\": " + std::to_string(kLayers) +
         ", \"layer_norm_eps\": 1e-12, \"vocab_size\": 30}";
}

fs::path write_folder(const std::string& name, const Tensors& tensors,
                      const std::string& config = config_json(),
                      const std::function<void(std::string&)>& edit_header = {}) {
  const fs::path dir = testing::scratch_dir("encoder_" + name);
  std::ofstream(dir / "config.json") << config;
  write_safetensors(dir / "model.safetensors", tensors, edit_header);
  return dir;
}

Matrix file_matrix(const Tensors& t, const std::string& name) {
  const Tensor& tensor = t.at(name);
  Matrix M(tensor.shape[0], tensor.shape[1]);
  for (Index r = 0; r < M.rows(); ++r)
    for (Index c = 0; c < M.cols(); ++c)
      M(r, c) = static_cast<float>(tensor.values[static_cast<std::size_t>(r * M.cols() + c)]);
  return M;
}

RowVector file_row(const Tensors& t, const std::string& name) {
  const Tensor& tensor = t.at(name);
  RowVector v(tensor.shape[0]);
  for (Index k = 0; k < v.size(); ++k) {
    v(k) = static_cast<float>(tensor.values[static_cast<std::size_t>(k)]);
  }
  return v;
}

/// The one line of the InputError that reading layer `layer` of `dir` throws ("" if none).
std::string read_error(const fs::path& dir, Index layer = 1) {
  try {
    (void)read_encoder_layer(dir.string(), layer);
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    return e.what();
  }
  return "";
}

TEST(EncoderWeights, ReadsEachLayerWithItsInputNormTransposed) {
  const Tensors t = bert_tensors();
  const fs::path dir = write_folder("layers", t);
  for (Index layer = 1; layer <= kLayers; ++layer) {
    const EncoderLayer w = read_encoder_layer(dir.string(), layer);
    const std::string p = "encoder.layer." + std::to_string(layer - 1) + ".";
    const std::string in = layer == 1 ? "embeddings.LayerNorm" : "encoder.layer.0.output.LayerNorm";
    EXPECT_EQ(w.layer, layer);
    EXPECT_EQ(w.heads, kHeads);
    EXPECT_EQ(w.epsilon, 1e-12);
    EXPECT_EQ(w.input.gamma, file_row(t, in + ".weight"));
    EXPECT_EQ(w.input.beta, file_row(t, in + ".bias"));
    EXPECT_EQ(w.WQ, file_matrix(t, p + "attention.self.query.weight").transpose());
    EXPECT_EQ(w.bK, file_row(t, p + "attention.self.key.bias"));
    EXPECT_EQ(w.WV, file_matrix(t, p + "attention.self.value.weight").transpose());
    EXPECT_EQ(w.WO, file_matrix(t, p + "attention.output.dense.weight").transpose());
    EXPECT_EQ(w.norm1.gamma, file_row(t, p + "attention.output.LayerNorm.weight"));
    EXPECT_EQ(w.W1, file_matrix(t, p + "intermediate.dense.weight").transpose());
    EXPECT_EQ(w.W2, file_matrix(t, p + "output.dense.weight").transpose());
    EXPECT_EQ(w.b2, file_row(t, p + "output.dense.bias"));
    EXPECT_EQ(w.norm2.beta, file_row(t, p + "output.LayerNorm.bias"));
    EXPECT_EQ(w.W1.rows(), kD);
    EXPECT_EQ(w.W1.cols(), kWidth);
    EXPECT_EQ(w.sha256, file_sha256((dir / "model.safetensors").string()));
    EXPECT_EQ(w.source, (dir / "model.safetensors").string());
  }
}

TEST(EncoderWeights, ReadsF64AsStored) {
  Tensors t = bert_tensors();
  const std::string name = "encoder.layer.0.attention.self.query.bias";
  t[name].dtype = "F64";
  t[name].values[1] = 0.1;  // not a float
  const EncoderLayer w = read_encoder_layer(write_folder("f64", t).string(), 1);
  EXPECT_EQ(w.bQ(1), 0.1);
}

TEST(EncoderWeights, RefusesEachMalformedFileWithOneLine) {
  const Tensors good = bert_tensors();
  const std::string weight = "encoder.layer.1.intermediate.dense.weight";
  EXPECT_NE(read_error(write_folder("range", good), 3).find("has layers 1 ... 2"),
            std::string::npos);
  EXPECT_NE(read_error(write_folder("range0", good), 0).find("has layers 1 ... 2"),
            std::string::npos);
  EXPECT_NE(read_error(write_folder("act", good, config_json("gelu_new"))).find("hidden_act"),
            std::string::npos);
  EXPECT_NE(read_error(write_folder("json", good, "{\"hidden_size\": ")).find("not valid JSON"),
            std::string::npos);
  Tensors missing = good;
  missing.erase(weight);
  EXPECT_NE(read_error(write_folder("missing", missing), 2).find("has no tensor " + weight),
            std::string::npos);
  Tensors shape = good;
  shape[weight].shape = {kD, kWidth};
  EXPECT_NE(read_error(write_folder("shape", shape), 2).find("has shape (4, 6), expected (6, 4)"),
            std::string::npos);
  Tensors half = good;
  half[weight].dtype = "F16";
  EXPECT_NE(read_error(write_folder("dtype", half), 2).find("is F16, expected F32 or F64"),
            std::string::npos);
  Tensors nan = good;
  nan[weight].values[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(read_error(write_folder("nan", nan), 2).find("NaN or infinite"), std::string::npos);
  // Offsets beyond the data, and a header that is no JSON object.
  const auto beyond = [](std::string& h) {
    const auto at = h.rfind("\"data_offsets\":[");
    h.replace(h.find(']', at) - 1, 1, "9999999");
  };
  EXPECT_NE(
      read_error(write_folder("offsets", good, config_json(), beyond), 2).find("data_offsets"),
      std::string::npos);
  const auto not_json = [](std::string& h) { h[0] = '['; };
  EXPECT_NE(read_error(write_folder("header", good, config_json(), not_json))
                .find("is not a safetensors file"),
            std::string::npos);
  // A header length beyond the file.
  const fs::path cut = write_folder("length", good);
  fs::resize_file(cut / "model.safetensors", 100);
  EXPECT_NE(read_error(cut).find("is not a safetensors file (header length"), std::string::npos);
  const fs::path none = testing::scratch_dir("encoder_none");
  EXPECT_NE(read_error(none).find("config.json: cannot be read"), std::string::npos);
}

TEST(EncoderWeights, Sha256OfTheNistVectors) {
  const fs::path dir = testing::scratch_dir("sha256");
  const auto digest = [&](const std::string& content) {
    std::ofstream(dir / "f", std::ios::binary) << content;
    return file_sha256((dir / "f").string());
  };
  EXPECT_EQ(digest(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(digest("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Beyond the reader's 1 MiB block.
  EXPECT_EQ(digest(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_NE(weights_fingerprint((dir / "f").string())
                .find("content=sha256:cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7"),
            std::string::npos);
}

}  // namespace
}  // namespace wordsens::io
