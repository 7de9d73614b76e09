#pragma once
// An advisory whole-file lock (an open-file-description lock, or flock where those are missing)
// held by the one process that writes a results file.
// The kernel drops it when that process dies, even by SIGKILL, so "locked" means "a live writer
// exists"; this is what lets a resumed run safely clear the "open for write" flags that a killed
// writer leaves in the HDF5 superblock. HDF5's own locking is switched off (h5.cpp) because it
// cannot tell a live writer from a dead one once those flags are set.
#include <string>

namespace wordsens::io {

class FileLock {
 public:
  FileLock() = default;
  /// Locks `path` (which must exist and be writable). Throws InputError when another live
  /// process holds the lock. On file systems without lock support the lock is skipped.
  explicit FileLock(const std::string& path);
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

  /// True when `path` is locked by another live process (false when it does not exist).
  static bool held_elsewhere(const std::string& path);

 private:
  int fd_ = -1;
};

}  // namespace wordsens::io
