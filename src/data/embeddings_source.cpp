#include "data/embeddings_source.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/errors.hpp"
#include "core/philox.hpp"
#include "data/normalise.hpp"

namespace wordsens {

namespace {

std::string str(Index value) { return std::to_string(value); }

// Uniform integer in [0, range) from the words of Philox blocks (trial, 0, step, group),
// without modulo bias: Lemire's multiply-and-reject, taking the next word on a rejection.
Index uniform_below(const Philox& rng, std::uint32_t trial, std::uint32_t step,
                    std::uint32_t range) {
  const std::uint32_t threshold = (0u - range) % range;  // 2³² mod range
  for (std::uint32_t group = 0;; ++group) {
    const Philox::Block words = rng.block({trial, 0, step, group});
    for (const std::uint32_t word : words) {
      const std::uint64_t product = static_cast<std::uint64_t>(word) * range;
      if (static_cast<std::uint32_t>(product) >= threshold) {
        return static_cast<Index>(product >> 32);
      }
    }
  }
}

}  // namespace

EmbeddingsTable::EmbeddingsTable(std::string name, Index max_length, Index width,
                                 std::vector<Index> lengths, std::vector<double> labels,
                                 std::vector<Index> stored, Index stored_n, Index stored_d,
                                 std::vector<float> tokens, bool whole_texts)
    : name_(std::move(name)),
      max_length_(max_length),
      width_(width),
      lengths_(std::move(lengths)),
      labels_(std::move(labels)),
      slot_(lengths_.size(), -1),
      stored_n_(stored_n),
      stored_d_(stored_d),
      tokens_(std::move(tokens)),
      whole_texts_(whole_texts) {
  const std::string where = "embeddings table " + name_ + ": ";
  if (labels_.size() != lengths_.size()) throw InputError(where + "labels != lengths");
  if (stored_n_ < 0 || stored_n_ > max_length_ || stored_d_ < 0 || stored_d_ > width_) {
    throw InputError(where + "stored window exceeds the sequences");
  }
  if (tokens_.size() != stored.size() * static_cast<std::size_t>(stored_n_ * stored_d_)) {
    throw InputError(where + "token buffer does not match the stored window");
  }
  for (std::size_t i = 0; i < stored.size(); ++i) {
    const Index s = stored[i];
    if (s < 0 || s >= sequences() || slot_[static_cast<std::size_t>(s)] >= 0) {
      throw InputError(where + "stored sequence " + str(s) + " is out of range or repeated");
    }
    slot_[static_cast<std::size_t>(s)] = static_cast<Index>(i);
  }
}

Index EmbeddingsTable::sequences() const { return static_cast<Index>(lengths_.size()); }
Index EmbeddingsTable::length(Index sequence) const {
  return lengths_.at(static_cast<std::size_t>(sequence));
}
double EmbeddingsTable::label(Index sequence) const {
  return labels_.at(static_cast<std::size_t>(sequence));
}

Matrix EmbeddingsTable::raw_tokens(Index sequence, Index n, Index d) const {
  const Index slot = slot_.at(static_cast<std::size_t>(sequence));
  if (slot < 0 || n > stored_n_ || d > stored_d_) {
    throw std::logic_error("embeddings table " + name_ + ": sequence " + str(sequence) +
                           " (n = " + str(n) + ", d = " + str(d) + ") was not loaded");
  }
  const float* base = tokens_.data() + slot * stored_n_ * stored_d_;
  Matrix X(n, d);
  for (Index t = 0; t < n; ++t) {
    for (Index c = 0; c < d; ++c) X(t, c) = static_cast<double>(base[t * stored_d_ + c]);
  }
  return X;
}

std::vector<Index> usable_sequences(const EmbeddingsSource& source, Index n) {
  std::vector<Index> usable;
  const bool whole = source.whole_texts();
  for (Index s = 0; s < source.sequences(); ++s) {
    if (whole ? source.length(s) == n : source.length(s) >= n) usable.push_back(s);
  }
  return usable;
}

namespace {

// "at least n = 5 tokens", or "exactly n = 5 tokens (whole windows: …)" for the error messages.
std::string texts_of_n(const EmbeddingsSource& source, Index n) {
  if (!source.whole_texts()) return "at least n = " + str(n) + " tokens";
  return "exactly n = " + str(n) +
         " tokens (a file of whole windows, text_windows = whole: a text of n tokens is a "
         "sequence of n tokens, encoded on its own)";
}

}  // namespace

void check_embeddings_support(const EmbeddingsSource& source, Index n, Index d, Index needed) {
  const std::string where = "embeddings file " + source.name() + ": ";
  if (d < 1 || d > source.width()) {
    throw InputError(where + "d = " + str(d) + " is not in [1, " + str(source.width()) +
                     "] (the embedding width)");
  }
  if (n < 1 || n > source.max_length()) {
    throw InputError(where + "n = " + str(n) + " is not in [1, " + str(source.max_length()) +
                     "] (the longest sequence)");
  }
  const auto usable = static_cast<Index>(usable_sequences(source, n).size());
  if (usable < needed) {
    throw InputError(where + "only " + str(usable) + " sequences have " + texts_of_n(source, n) +
                     ", but a trial needs " + str(needed));
  }
}

Matrix embeddings_sample(const EmbeddingsSource& source, Index sequence, Index n, Index d) {
  const std::string where = "embeddings file " + source.name() + ": ";
  if (sequence < 0 || sequence >= source.sequences()) {
    throw InputError(where + "no sequence " + str(sequence));
  }
  if (d < 1 || d > source.width()) {
    throw InputError(where + "d = " + str(d) + " exceeds the embedding width " +
                     str(source.width()));
  }
  if (n < 1 || n > source.length(sequence)) {
    throw InputError(where + "sequence " + str(sequence) + " has " + str(source.length(sequence)) +
                     " tokens, fewer than n = " + str(n));
  }
  if (source.whole_texts() && n != source.length(sequence)) {
    throw InputError(where + "sequence " + str(sequence) + " is a whole window of " +
                     str(source.length(sequence)) + " tokens (text_windows = whole): its first " +
                     str(n) + " are not a text of n = " + str(n) + " tokens");
  }
  Matrix X = source.raw_tokens(sequence, n, d);
  for (Index i = 0; i < X.rows(); ++i) {
    if (!X.row(i).allFinite()) {
      throw InputError(where + "token " + str(i) + " of sequence " + str(sequence) +
                       " has a NaN or infinite coordinate");
    }
    if (X.row(i).squaredNorm() == 0.0) {
      throw InputError(where + "token " + str(i) + " of sequence " + str(sequence) +
                       " is zero in its first " + str(d) +
                       " coordinates and cannot be rescaled to norm sqrt(d)");
    }
  }
  return normalise_rows(std::move(X));
}

std::vector<Index> select_sequences(const EmbeddingsSource& source, std::uint32_t master_seed,
                                    std::uint32_t trial, Index n, Index count) {
  std::vector<Index> pool = usable_sequences(source, n);
  const auto size = static_cast<Index>(pool.size());
  if (count > size) {
    throw InputError("embeddings file " + source.name() + ": only " + str(size) +
                     " sequences have " + texts_of_n(source, n) + ", but a trial needs " +
                     str(count));
  }
  // Partial Fisher–Yates: step s swaps a uniform pick from [s, size) into place s, so the first
  // `count` entries do not depend on how many more are drawn (nested training sets).
  const Philox rng(master_seed, Stream::data_selection);
  for (Index step = 0; step < count; ++step) {
    const auto range = static_cast<std::uint32_t>(size - step);
    const Index pick = step + uniform_below(rng, trial, static_cast<std::uint32_t>(step), range);
    std::swap(pool[static_cast<std::size_t>(step)], pool[static_cast<std::size_t>(pick)]);
  }
  pool.resize(static_cast<std::size_t>(count));
  return pool;
}

Matrix embeddings_trial_sample(const EmbeddingsSource& source, std::uint32_t master_seed, Index n,
                               Index d, std::uint32_t trial, std::uint32_t sample_index) {
  const auto chosen = select_sequences(source, master_seed, trial, n, Index{sample_index} + 1);
  return embeddings_sample(source, chosen.back(), n, d);
}

double embeddings_trial_label(const EmbeddingsSource& source, std::uint32_t master_seed, Index n,
                              std::uint32_t trial, std::uint32_t sample_index) {
  const auto chosen = select_sequences(source, master_seed, trial, n, Index{sample_index} + 1);
  return source.label(chosen.back());
}

}  // namespace wordsens
