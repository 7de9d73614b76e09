#include "io/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "io/results_file.hpp"

namespace wordsens::io {

namespace {

// Locks the whole file through a fresh descriptor. An open-file-description lock (F_OFD_SETLK)
// is independent of the flock HDF5 takes itself when HDF5_USE_FILE_LOCKING forces its locking
// on, so the two never collide; flock is the fallback where OFD locks are missing.
// Returns the descriptor (locked, or on a file system without locks), -1 when another
// process holds the lock, or -2 when the file cannot be opened.
int try_lock(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return -2;
  int error = 0;
#ifdef F_OFD_SETLK
  struct flock whole {};
  whole.l_type = F_WRLCK;
  whole.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file, however long it grows
  if (::fcntl(fd, F_OFD_SETLK, &whole) == 0) return fd;
  error = errno;
  if (error == EINVAL && ::flock(fd, LOCK_EX | LOCK_NB) != 0)
    error = errno;
  else if (error == EINVAL)
    return fd;
#else
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  error = errno;
#endif
  if (error == EWOULDBLOCK || error == EAGAIN || error == EACCES) {
    ::close(fd);
    return -1;
  }
  return fd;  // ENOLCK / ENOSYS: no locking here; best effort, like HDF5's own
}

}  // namespace

FileLock::FileLock(const std::string& path) {
  const int fd = try_lock(path);
  if (fd == -1) {
    throw InputError(path + " is being written by another live process (its lock is held)");
  }
  if (fd == -2) throw InputError("cannot open " + path + " for writing");
  fd_ = fd;
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the (only) descriptor releases the lock
}

bool FileLock::held_elsewhere(const std::string& path) {
  const int fd = try_lock(path);
  if (fd >= 0) ::close(fd);
  return fd == -1;
}

}  // namespace wordsens::io
