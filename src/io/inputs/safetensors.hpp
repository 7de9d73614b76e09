#pragma once
// A reader of the safetensors format (the weights files of pretrained models): an 8-byte
// little-endian header length N, N bytes of JSON ({name: {dtype, shape, data_offsets}}, plus an
// optional "__metadata__"), then the raw little-endian tensors, offsets relative to the data's
// start. Tensors are read one at a time by name, F32 or F64, as doubles; nothing is read that is
// not asked for.
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace wordsens::io {

class SafetensorsFile {
 public:
  /// Opens `path` and parses its header. Throws InputError (one line naming the file) for a
  /// missing or unreadable file, a header length beyond the file, or a header that is not a JSON
  /// object.
  explicit SafetensorsFile(std::string path);
  SafetensorsFile(SafetensorsFile&&) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept;
  ~SafetensorsFile();

  [[nodiscard]] const std::string& path() const;
  /// Whether the header lists a tensor `name`.
  [[nodiscard]] bool has(const std::string& name) const;

  /// The tensor `name` as doubles, row-major. Throws InputError for a missing tensor, a shape
  /// other than `shape`, a dtype other than F32 or F64, data_offsets that do not hold exactly its
  /// values inside the file, or a NaN or infinite value.
  [[nodiscard]] std::vector<double> read(const std::string& name, const std::vector<Index>& shape);

  /// A rows × cols tensor as a matrix; transposed: as the cols × rows matrix (the weights W of
  /// y = x Wᵀ + b as the matrix acting on the right of rows).
  [[nodiscard]] Matrix matrix(const std::string& name, Index rows, Index cols);
  [[nodiscard]] Matrix transposed(const std::string& name, Index rows, Index cols);
  /// A tensor of `size` values as a row.
  [[nodiscard]] RowVector row(const std::string& name, Index size);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wordsens::io
