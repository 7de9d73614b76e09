#pragma once
// Reader of the real-text embeddings file: /tokens (sequences × max_len × d_emb,
// floating point), /lengths (integers), /labels (integers ±1), optional /text and provenance
// attributes. This header does not include hdf5.h (only io/h5/h5.hpp does), so the driver and the
// tests can use it like any other EmbeddingsSource.
//
// open() validates the layout once and keeps the small arrays (lengths, labels) in memory;
// raw_tokens() reads just the (1 × n × d) box it needs, so a 200 MB file costs no memory.
// Token values are checked (NaN/Inf, zero rows) before a run starts, in the windows its tasks
// use (data/embeddings_data_source.hpp check_token_values), and again by embeddings_sample().
#include <memory>
#include <string>
#include <vector>

#include "data/embeddings_source.hpp"

namespace wordsens::io {

class EmbeddingsFile final : public EmbeddingsSource {
 public:
  /// Opens and validates `path`. Throws InputError with a one-line message for a
  /// missing or non-HDF5 file, a missing dataset, a wrong rank or element type, inconsistent
  /// sizes, a length outside [0, max_len], a label other than ±1, or a root attribute
  /// text_windows other than "prefix" or "whole".
  [[nodiscard]] static EmbeddingsFile open(const std::string& path);

  EmbeddingsFile(EmbeddingsFile&&) noexcept;
  EmbeddingsFile& operator=(EmbeddingsFile&&) noexcept;
  ~EmbeddingsFile() override;

  [[nodiscard]] Index sequences() const override;
  [[nodiscard]] Index max_length() const override;
  [[nodiscard]] Index width() const override;
  [[nodiscard]] Index length(Index sequence) const override;
  [[nodiscard]] double label(Index sequence) const override;
  [[nodiscard]] Matrix raw_tokens(Index sequence, Index n, Index d) const override;
  [[nodiscard]] std::string name() const override;
  [[nodiscard]] bool whole_texts() const override;

  /// An in-memory table with every length and label and the first n tokens and d coordinates
  /// of `stored` (sequence ids). Throws InputError for an out-of-range request.
  [[nodiscard]] EmbeddingsTable load(const std::vector<Index>& stored, Index n, Index d) const;

  /// Number of sequences with at least n tokens.
  [[nodiscard]] Index count_usable(Index n) const;
  /// A root attribute as text, an integer scalar as its decimal digits ("" when absent or of
  /// another type), e.g. "embedding_model", "layer".
  [[nodiscard]] std::string attribute(const std::string& key) const;

  /// "size=<bytes> mtime=<UTC, ISO 8601> content=mulrot64:<16 hex>": the file's size and
  /// modification time, and a hash of what a run reads from it: the three dimensions of /tokens,
  /// its values as float64 in storage order, /lengths as int64 and /labels as float64 (each as a
  /// 64-bit word; see WordHash in embeddings_file.cpp). Any single changed value changes it.
  /// A file of whole windows appends " text_windows=whole" (they choose other texts).
  /// Reads /tokens whole, in blocks.
  [[nodiscard]] std::string fingerprint() const;

 private:
  struct Impl;
  explicit EmbeddingsFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace wordsens::io
