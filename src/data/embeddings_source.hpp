#pragma once
// Real-text samples (docs/METHOD.md §1: `embeddings` and the file layout) from a source of
// token-embedding sequences. This header knows nothing of files: io/inputs/embeddings_file.hpp
// implements the source for the HDF5 layout, tests can implement it in memory.
//
// Which sequences a trial uses is a pure function of (master seed, trial, n) and the source:
// a Philox-driven partial Fisher–Yates shuffle (Stream::data_selection, entity = trial) of the
// sequences that give a text of n tokens: those with at least n tokens (their first n), or, in a
// source of whole windows (whole_texts()), those of exactly n tokens. Position 0 of the shuffle is
// the trial's test text (WS and gen), positions 1..N its training texts (gen), so they are always
// disjoint, WS and gen share the test text, and the training set of a larger N extends that of a
// smaller one. Like synthetic samples, they do not depend on the model, k or d (common random
// numbers).
#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace wordsens {

/// A read-only collection of token-embedding sequences with ±1 labels.
class EmbeddingsSource {
 public:
  EmbeddingsSource() = default;
  EmbeddingsSource(const EmbeddingsSource&) = delete;
  EmbeddingsSource& operator=(const EmbeddingsSource&) = delete;
  virtual ~EmbeddingsSource() = default;

  [[nodiscard]] virtual Index sequences() const = 0;   // number of sequences
  [[nodiscard]] virtual Index max_length() const = 0;  // tokens per stored sequence (padded)
  [[nodiscard]] virtual Index width() const = 0;       // embedding width d_emb
  [[nodiscard]] virtual Index length(Index sequence) const = 0;  // tokens actually present
  [[nodiscard]] virtual double label(Index sequence) const = 0;  // +1 or -1
  /// The first n tokens and first d coordinates of a sequence, as stored (not rescaled).
  /// Callers guarantee sequence < sequences(), n ≤ length(sequence), d ≤ width().
  [[nodiscard]] virtual Matrix raw_tokens(Index sequence, Index n, Index d) const = 0;
  /// Where the data comes from (a file path), for error messages.
  [[nodiscard]] virtual std::string name() const = 0;
  /// True when a text of n tokens is a whole sequence of exactly n tokens: contextual hidden
  /// states, where every token's vector depends on its whole window, so the first n tokens of a
  /// longer sequence are not the states of an n-token text (file attribute
  /// text_windows = "whole"). False (the default, text_windows = "prefix" or absent): any
  /// sequence of at least n tokens gives one, its first n tokens.
  [[nodiscard]] virtual bool whole_texts() const { return false; }

 protected:
  EmbeddingsSource(EmbeddingsSource&&) = default;
  EmbeddingsSource& operator=(EmbeddingsSource&&) = default;
};

/// An in-memory copy of (part of) a source: the lengths and labels of every sequence, and the
/// tokens of some sequences, truncated to their first `stored_n` tokens and `stored_d`
/// coordinates (float32, as the file stores them). The driver loads what its tasks need once,
/// so that computing threads never touch a file (the HDF5 library is not thread-safe).
class EmbeddingsTable final : public EmbeddingsSource {
 public:
  /// `tokens` holds, for each entry of `stored` (sequence ids, any order), stored_n × stored_d
  /// floats row-major, in the order of `stored`. Throws InputError on inconsistent
  /// sizes.
  EmbeddingsTable(std::string name, Index max_length, Index width, std::vector<Index> lengths,
                  std::vector<double> labels, std::vector<Index> stored, Index stored_n,
                  Index stored_d, std::vector<float> tokens, bool whole_texts = false);

  [[nodiscard]] Index sequences() const override;
  [[nodiscard]] Index max_length() const override { return max_length_; }
  [[nodiscard]] Index width() const override { return width_; }
  [[nodiscard]] Index length(Index sequence) const override;
  [[nodiscard]] double label(Index sequence) const override;
  /// Throws std::logic_error when the sequence or the window was not loaded.
  [[nodiscard]] Matrix raw_tokens(Index sequence, Index n, Index d) const override;
  [[nodiscard]] std::string name() const override { return name_; }
  [[nodiscard]] bool whole_texts() const override { return whole_texts_; }

 private:
  std::string name_;
  Index max_length_, width_;
  std::vector<Index> lengths_;
  std::vector<double> labels_;
  std::vector<Index> slot_;  // per sequence: its position in `stored`, or -1
  Index stored_n_, stored_d_;
  std::vector<float> tokens_;
  bool whole_texts_;
};

/// The sequences that give a text of n tokens (at least n tokens; exactly n in a source of whole
/// windows), in storage order.
[[nodiscard]] std::vector<Index> usable_sequences(const EmbeddingsSource& source, Index n);

/// Throws InputError (one line) unless every trial of a grid point (n, d) can be
/// served: 1 ≤ d ≤ width, 1 ≤ n ≤ max_length, and at least `needed` sequences (1 for WS,
/// N + 1 for gen) that give a text of n tokens. Call it before planning tasks.
void check_embeddings_support(const EmbeddingsSource& source, Index n, Index d, Index needed);

/// X = the first n tokens and first d coordinates of `sequence`, rows rescaled to norm √d.
/// Throws InputError for an out-of-range request (in a source of whole windows, n other than
/// the sequence's length) or a NaN/Inf or zero token.
[[nodiscard]] Matrix embeddings_sample(const EmbeddingsSource& source, Index sequence, Index n,
                                       Index d);

/// The first `count` positions of the trial's shuffle of usable_sequences(source, n): element 0
/// is the test text, 1..count-1 the training texts. Throws InputError when fewer than
/// `count` sequences have n tokens.
[[nodiscard]] std::vector<Index> select_sequences(const EmbeddingsSource& source,
                                                  std::uint32_t master_seed, std::uint32_t trial,
                                                  Index n, Index count);

/// Mirrors synthetic_sample: sample index 0 is the trial's test text, 1..N gen's training texts.
[[nodiscard]] Matrix embeddings_trial_sample(const EmbeddingsSource& source,
                                             std::uint32_t master_seed, Index n, Index d,
                                             std::uint32_t trial, std::uint32_t sample_index);

/// The label (±1) stored for the text embeddings_trial_sample returns.
[[nodiscard]] double embeddings_trial_label(const EmbeddingsSource& source,
                                            std::uint32_t master_seed, Index n, std::uint32_t trial,
                                            std::uint32_t sample_index);

}  // namespace wordsens
