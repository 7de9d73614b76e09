// The global heap check (global_heap.hpp), after the HDF5 file format specification's "Global
// Heap" (collection: "GCOL", version 1, 3 reserved bytes, 8-byte size; objects: 2-byte index,
// 2-byte reference count, 4 reserved bytes, 8-byte size, data padded to a multiple of 8).
#include "io/h5/global_heap.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

namespace wordsens::io::detail {

namespace {

constexpr char kSignature[8] = {'G', 'C', 'O', 'L', 1, 0, 0, 0};
constexpr std::uint64_t kHeader = 16;         // collection header, and object header, bytes
constexpr std::uint64_t kMinimumSize = 4096;  // HDF5's smallest collection

std::uint64_t little_endian(const unsigned char* bytes, int size) {
  std::uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

std::uint64_t padded(std::uint64_t size) { return (size + 7) / 8 * 8; }

// The problem of the collection at `at` ("" when well formed).
std::string collection_problem(std::ifstream& in, std::uint64_t at, std::uint64_t file_size) {
  const std::string where = "global heap collection at " + std::to_string(at);
  unsigned char header[kHeader];
  in.clear();
  in.seekg(static_cast<std::streamoff>(at));
  in.read(reinterpret_cast<char*>(header), kHeader);
  const std::uint64_t size = little_endian(header + 8, 8);
  if (size < kMinimumSize || size > file_size - at) {
    return where + ": its size " + std::to_string(size) + " is impossible";
  }
  std::vector<unsigned char> data(size);
  in.seekg(static_cast<std::streamoff>(at));
  if (!in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(size))) {
    return where + ": cut short";
  }
  std::set<std::uint64_t> seen;
  std::uint64_t p = kHeader;
  while (p + kHeader <= size) {
    const std::uint64_t index = little_endian(&data[p], 2);
    const std::uint64_t length = little_endian(&data[p + 8], 8);
    if (index == 0) {  // free space, its header included: it must end with the collection
      if (length < kHeader || length != size - p) {
        return where + ": its free space (" + std::to_string(length) + " bytes at " +
               std::to_string(p) + ") does not end the collection";
      }
      return "";
    }
    if (!seen.insert(index).second) {
      return where + ": object " + std::to_string(index) + " appears twice";
    }
    if (length > size - p - kHeader || padded(length) > size - p - kHeader) {
      return where + ": object " + std::to_string(index) + " (" + std::to_string(length) +
             " bytes) runs past the collection's end";
    }
    p += kHeader + padded(length);
  }
  // Less room than an object header is left: HDF5 counts it as free space.
  return "";
}

std::string scan(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";  // HDF5 reports what it cannot open
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<std::uint64_t>(in.tellg());
  std::vector<std::uint64_t> collections;
  constexpr std::size_t kBlock = 1 << 20;
  std::vector<char> block(kBlock + sizeof kSignature);
  std::size_t carried = 0;  // bytes of the previous block kept in front (a split signature)
  std::uint64_t base = 0;   // file offset of block[0]
  in.seekg(0);
  while (in) {
    in.read(block.data() + carried, static_cast<std::streamsize>(kBlock));
    const std::size_t have = carried + static_cast<std::size_t>(in.gcount());
    if (have < sizeof kSignature) break;
    for (std::size_t i = 0; i + sizeof kSignature <= have; ++i) {
      if (block[i] == 'G' && std::memcmp(&block[i], kSignature, sizeof kSignature) == 0) {
        collections.push_back(base + i);
      }
    }
    carried = sizeof kSignature - 1;
    std::memmove(block.data(), block.data() + have - carried, carried);
    base += have - carried;
  }
  for (const std::uint64_t at : collections) {
    std::string problem = collection_problem(in, at, file_size);
    if (!problem.empty()) return problem;
  }
  return "";
}

}  // namespace

std::string global_heap_problem(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return "";
  using Key = std::tuple<std::string, off_t, std::int64_t, long>;
  static std::mutex mutex;
  static std::map<Key, std::string> answers;
  const Key key{path, status.st_size, status.st_mtim.tv_sec, status.st_mtim.tv_nsec};
  {
    const std::lock_guard lock(mutex);
    if (const auto found = answers.find(key); found != answers.end()) return found->second;
  }
  std::string problem = scan(path);
  const std::lock_guard lock(mutex);
  answers[key] = problem;
  return problem;
}

}  // namespace wordsens::io::detail
