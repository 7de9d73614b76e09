#pragma once
// Advisory whole-file locks (open-file-description locks, or flock where those are missing).
// The kernel drops them when their process dies, even by SIGKILL, so "locked" means "a live
// holder exists"; this is what lets a resumed run safely clear the "open for write" flags that a
// killed writer leaves in the HDF5 superblock. HDF5's own locking is switched off (h5.cpp)
// because it cannot tell a live writer from a dead one once those flags are set.
//
// Two locks guard a results file:
//   WriterLock  on "<output>.lock", held by the one process that creates, resumes or merges into
//               the output, from before the output exists until it is closed; its text names
//               the holder (pid, host, start time), so a second writer is told who the first is.
//   FileLock    on the output itself (and on a temporary file while it is being built), so that
//               stale temporaries can be told from live ones and older versions stay excluded.
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

class WriterLock {
 public:
  WriterLock() = default;
  /// Takes the writer lock of `output` (creating "<output>.lock"). Throws InputError when
  /// another live process holds it ("<output> is being written by another process (pid 1234 on
  /// host n1 since …)") or when the lock file cannot be created.
  static WriterLock acquire(const std::string& output);
  WriterLock(WriterLock&& other) noexcept;
  WriterLock& operator=(WriterLock&& other) noexcept;
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;
  ~WriterLock();

  /// Removes the lock file and releases the lock (idempotent). A killed holder leaves the file
  /// behind, unlocked: the next acquire() takes it over.
  void release() noexcept;

  /// "<output>.lock".
  [[nodiscard]] static std::string lock_path(const std::string& output);

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace wordsens::io
